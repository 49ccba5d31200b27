import { Client } from 'pg';
import { sleep } from './clock';
import type { ExpectedState } from './load';
import type { WebhookSink } from './webhook-sink';

export interface StateCheck {
  /** Links of the soak's merchants in the database, by status. */
  byStatus: Record<string, number>;
  /** Links whose state differs from what the answers the soak got imply. */
  mismatches: { id: string; expected: ExpectedState; actual: string }[];
  /** Links the soak made no claim about: an answer was lost (network error) or a create was never answered. */
  uncertain: number;
  paidIds: string[];
  /** notifier.deliveries rows per paid link: exactly one is right (one event, one webhook id). */
  deliveriesPerPaidLink: Map<string, number>;
  deliveriesNotSucceeded: number;
}

async function query<T extends Record<string, unknown>>(url: string, text: string, params: unknown[]): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

const paidLinkIds = async (url: string, merchantIds: string[]): Promise<string[]> =>
  (
    await query<{ id: string }>(url, `SELECT id::text FROM links.payment_links WHERE merchant_id = ANY($1::uuid[]) AND status = 'paid'`, [
      merchantIds,
    ])
  ).map((r) => r.id);

/**
 * Waits until every link paid in the database has had a webhook, or `timeoutMs` passes (the notifier's
 * first retry comes 10 s after a failed attempt, so a minute covers a few). Returns how long it waited.
 */
export async function awaitWebhooks(url: string, merchantIds: string[], sink: WebhookSink, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const got = sink.linkIds();
    if ((await paidLinkIds(url, merchantIds)).every((id) => got.has(id))) break;
    await sleep(500);
  }
  return Date.now() - started;
}

export async function checkStates(url: string, merchantIds: string[], expected: ReadonlyMap<string, ExpectedState>): Promise<StateCheck> {
  const rows = await query<{ id: string; status: string }>(
    url,
    'SELECT id::text, status FROM links.payment_links WHERE merchant_id = ANY($1::uuid[])',
    [merchantIds],
  );
  const byStatus: Record<string, number> = {};
  const mismatches: StateCheck['mismatches'] = [];
  let uncertain = 0;
  for (const row of rows) {
    byStatus[row.status] = (byStatus[row.status] ?? 0) + 1;
    const want = expected.get(row.id);
    if (want === undefined || want === 'unknown') uncertain++;
    else if (want !== row.status) mismatches.push({ id: row.id, expected: want, actual: row.status });
  }
  const present = new Set(rows.map((r) => r.id));
  for (const [id, want] of expected) {
    if (want !== 'unknown' && !present.has(id)) mismatches.push({ id, expected: want, actual: '(missing)' });
  }
  const paidIds = rows.filter((r) => r.status === 'paid').map((r) => r.id);
  const deliveries = await query<{ link: string; n: string; bad: string }>(
    url,
    `SELECT payment_link_id::text AS link, count(*) AS n, count(*) FILTER (WHERE status <> 'succeeded') AS bad
       FROM notifier.deliveries WHERE merchant_id = ANY($1::uuid[]) GROUP BY 1`,
    [merchantIds],
  );
  const deliveriesPerPaidLink = new Map(paidIds.map((id) => [id, 0]));
  let deliveriesNotSucceeded = 0;
  for (const d of deliveries) {
    deliveriesPerPaidLink.set(d.link, Number(d.n));
    deliveriesNotSucceeded += Number(d.bad);
  }
  return { byStatus, mismatches, uncertain, paidIds, deliveriesPerPaidLink, deliveriesNotSucceeded };
}
