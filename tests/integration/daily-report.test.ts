// The daily report (docs/money.md, "Daily report"; ADR 40) across the real gateway, links and shops, Postgres and NATS:
// its rows are the shop's movements of one Moscow day, its totals are the ledger's for that day, it pages through the
// bus, and every bad input is a documented 4xx.
import { randomUUID } from 'node:crypto';
import { Db } from '@pl/db';
import { LINKS_SCHEMA, DailyReportRepository, getDailyReportPage } from '@pl/links';
import { createLogger } from '@pl/telemetry';
import { expectError } from '../support/http';
import { refundCallback, verifyLedger } from '../support/money';
import { sandboxPaymentId, startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
let session: Record<string, string>;

beforeAll(async () => {
  sys = await startSystem();
  ({ merchant, shop } = await sys.merchantWithShop());
  session = { Authorization: `Bearer ${await sys.login(merchant)}` };
});
afterAll(async () => {
  await sys?.stop();
});

/** The raw answer: the byte-order mark survives only in bytes (a text decoder drops it). */
async function download(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Headers; bytes: Buffer; text: string }> {
  const res = await fetch(`${sys.baseUrl}${path}`, { headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: bytes.toString('utf8').replace(/^\ufeff/, '') };
}

/** RFC 4180 read back as a spreadsheet reads it: quoted fields may hold commas, quotes (doubled) and line breaks. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    const next = text.charAt(i + 1);
    i += 1;
    if (quoted && c === '"' && next === '"') {
      field = `${field}"`;
      i += 1;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && c === ',') {
      record.push(field);
      field = '';
    } else if (!quoted && c === '\r' && next === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 1;
    } else {
      field = `${field}${c}`;
    }
  }
  expect({ field, record }).toEqual({ field: '', record: [] }); // the file ends with CRLF
  return records;
}

interface ReportLine {
  id: string;
  time: string;
  type: string;
  amount: string;
  fee: string;
  net: string;
  order_id: string;
  destination: string;
  status: string;
}

/** The report's lines as objects by its header, the totals line last. */
async function report(shopId: number, date: string, headers: Record<string, string> = merchant.keys): Promise<ReportLine[]> {
  const res = await download(`/merchant/v1/reports/daily?shop_id=${shopId}&date=${date}`, headers);
  expect(res.status).toBe(200);
  const [header, ...lines] = parseCsv(res.text);
  expect(header).toEqual(['id', 'time', 'type', 'amount', 'fee', 'net', 'order_id', 'destination', 'status']);
  return lines.map((l) => Object.fromEntries((header ?? []).map((h, i) => [h, l[i]])) as unknown as ReportLine);
}

const kopecks = (money: string): number => Math.round(Number(money) * 100);

const createLink = async (amount: string, orderId = `dr-${randomUUID()}`, s: TestShop = shop): Promise<string> => {
  const res = await sys.http.post('/merchant/v1/payment-links', { shop_id: s.id, amount, order_id: orderId }, { headers: merchant.keys });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const paidLink = async (amount: string, orderId?: string, s?: TestShop): Promise<string> => {
  const id = await createLink(amount, orderId, s);
  expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
  return id;
};
const refund = async (linkId: string, body: Record<string, unknown>): Promise<{ id: string; gateway_refund_id: string }> => {
  const res = await sys.http.post(`/merchant/v1/payment-links/${linkId}/refunds`, body, { headers: merchant.keys });
  expect(res.status).toBe(201);
  return res.body;
};
/** A payment that arrived for a canceled link: an unresolved (`late`) payment; its id. */
const latePayment = async (amount: string): Promise<{ linkId: string; id: string }> => {
  const linkId = await createLink(amount);
  expect((await sys.http.post(`/merchant/v1/payment-links/${linkId}/cancel`, {}, { headers: merchant.keys })).status).toBe(200);
  expect((await sys.providerCallback(sandboxPaymentId(linkId), 'paid')).status).toBe(200);
  const [row] = await sys.sql<{ id: string }>('SELECT id FROM links.unresolved_payments WHERE link_id = $1', [linkId]);
  if (!row) throw new Error('no unresolved payment recorded');
  return { linkId, id: row.id };
};

/**
 * Moves a shop's whole history (its ledger transactions and unresolved payments) by one interval, so that it lies on
 * a fixed past day whenever the test runs. The ledger is append-only by trigger: the test lifts that trigger for
 * this one statement in its own database, the only way to place real postings at chosen instants.
 */
async function shiftShopHistory(shopId: number, byMs: number): Promise<void> {
  if (!Number.isSafeInteger(shopId) || !Number.isSafeInteger(byMs)) throw new Error('shift by whole numbers only');
  const by = `interval '${byMs} milliseconds'`;
  await sys.sql(`BEGIN;
    ALTER TABLE links.ledger_transactions DISABLE TRIGGER ledger_transactions_append_only;
    UPDATE links.ledger_transactions SET created_at = created_at + ${by} WHERE shop_id = ${shopId};
    UPDATE links.unresolved_payments u SET received_at = received_at + ${by}
      FROM links.payment_links l WHERE l.id = u.link_id AND l.shop_id = ${shopId};
    ALTER TABLE links.ledger_transactions ENABLE TRIGGER ledger_transactions_append_only;
    COMMIT;`);
}

/** Places one ledger transaction at an exact instant (see shiftShopHistory). */
async function placeTransaction(linkId: string, at: string): Promise<void> {
  if (!/^[0-9a-f-]{36}$/.test(linkId) || !/^[0-9TZ:.-]+$/.test(at)) throw new Error('bad id or instant');
  await sys.sql(`BEGIN;
    ALTER TABLE links.ledger_transactions DISABLE TRIGGER ledger_transactions_append_only;
    UPDATE links.ledger_transactions SET created_at = '${at}' WHERE payment_link_id = '${linkId}';
    ALTER TABLE links.ledger_transactions ENABLE TRIGGER ledger_transactions_append_only;
    COMMIT;`);
}

/** The ledger's own figures for a shop's live day [from, to), read from its tables, not from the code under test. */
async function ledgerDay(shopId: number, from: string, to: string): Promise<{ amount: number; fee: number; net: number }> {
  const [sums] = await sys.sql<{ amount: string; fee: string; net: string }>(
    `WITH day AS (
       SELECT id, type, amount FROM links.ledger_transactions
        WHERE shop_id = $1 AND livemode AND created_at >= $2 AND created_at < $3
     )
     SELECT (SELECT coalesce(sum(amount), 0) FROM day
              WHERE type IN ('payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed'))::text AS amount,
            (SELECT coalesce(sum(e.amount), 0) FROM day JOIN links.ledger_entries e ON e.transaction_id = day.id
               JOIN links.ledger_accounts a ON a.id = e.account_id WHERE a.kind = 'revenue')::text AS fee,
            (SELECT coalesce(sum(e.amount), 0) FROM day JOIN links.ledger_entries e ON e.transaction_id = day.id
               JOIN links.ledger_accounts a ON a.id = e.account_id WHERE a.kind = 'available' AND a.shop_id = $1)::text AS net`,
    [shopId, from, to],
  );
  return { amount: Number(sums?.amount), fee: Number(sums?.fee), net: Number(sums?.net) };
}

describe('the daily report of a day', () => {
  const DAY = '2026-11-20';
  let lines: ReportLine[];
  const made: Record<string, string> = {};

  beforeAll(async () => {
    const started = Date.now();
    // Payments, a partial refund that succeeds, a full refund, a refund that fails, a late payment settled and one
    // given back to its buyer.
    made.paid = await paidLink('1000.00', 'order-1, "first"');
    made.fully = await paidLink('500.00', '=HYPERLINK("http://evil.example")');
    made.failing = await paidLink('300.00');
    const partial = await refund(made.paid, { amount: '400.00' });
    expect((await refundCallback(sys, partial.gateway_refund_id, 'succeeded')).status).toBe(200);
    made.partialRefund = partial.id;
    made.fullRefund = (await refund(made.fully, {})).id;
    const failing = await refund(made.failing, { amount: '100.00' });
    expect((await refundCallback(sys, failing.gateway_refund_id, 'failed')).status).toBe(200);
    made.failedRefund = failing.id;
    const settled = await latePayment('200.00');
    const settle = await sys.http.post(`/merchant/v1/unresolved-payments/${settled.id}/settle`, {}, { headers: merchant.keys });
    expect(settle.status).toBe(200);
    made.settled = settled.id;
    const givenBack = await latePayment('150.00');
    const back = await sys.http.post(`/merchant/v1/unresolved-payments/${givenBack.id}/refund`, {}, { headers: merchant.keys });
    expect(back.status).toBe(200);
    made.givenBack = givenBack.id;
    // All of it from 10:00 Moscow on the day, in the order it happened.
    await shiftShopHistory(shop.id, Date.parse(`${DAY}T07:00:00Z`) - started);
    lines = await report(shop.id, DAY);
  });

  it('lists every movement in time order, each with its id, Moscow time, amounts, order id and status', () => {
    const rows = lines.slice(0, -1);
    expect(rows.map((r) => [r.type, r.id])).toEqual([
      ['payment', made.paid],
      ['payment', made.fully],
      ['payment', made.failing],
      ['refund', made.partialRefund],
      ['refund', made.fullRefund],
      ['refund', made.failedRefund],
      ['refund_failed', made.failedRefund],
      ['unresolved_payment', made.settled],
      ['unresolved_payment_settled', made.settled],
      ['unresolved_payment', made.givenBack],
      ['unresolved_payment_refunded', made.givenBack],
    ]);
    expect(rows.map((r) => r.time)).toEqual([...rows.map((r) => r.time)].sort());
    for (const r of rows) {
      expect(r.time).toMatch(new RegExp(`^${DAY}T1\\d:\\d{2}:\\d{2}\\+03:00$`));
      expect(r.destination).toBe('');
    }
    expect(rows[0]).toMatchObject({ amount: '1000.00', order_id: 'order-1, "first"', status: 'paid' });
    expect(rows[3]).toMatchObject({ amount: '-400.00', fee: '0.00', net: '-400.00', status: 'succeeded' });
    expect(rows[4]).toMatchObject({ amount: '-500.00', net: '-500.00', status: 'pending' });
    expect(rows[5]).toMatchObject({ amount: '-100.00', status: 'failed' });
    expect(rows[6]).toMatchObject({ amount: '100.00', fee: '0.00', net: '100.00', status: 'failed' });
    // Arrivals and a refund to the buyer did not move the shop's balance: no fee, no net.
    expect(rows[7]).toMatchObject({ amount: '200.00', fee: '', net: '', status: 'settled' });
    expect(rows[10]).toMatchObject({ amount: '-150.00', fee: '', net: '', status: 'refunded' });
  });

  it('guards against formulas: an order id a spreadsheet would run is written as text', () => {
    expect(lines[1]?.order_id).toBe(`'=HYPERLINK("http://evil.example")`);
  });

  it("ends with totals that equal the ledger's movements of the shop that day", async () => {
    const totals = lines.at(-1);
    expect(totals).toMatchObject({ id: '', time: '', type: 'total' });
    const ledger = await ledgerDay(shop.id, `${DAY}T00:00:00+03:00`, '2026-11-21T00:00:00+03:00');
    expect({ amount: kopecks(totals!.amount), fee: kopecks(totals!.fee), net: kopecks(totals!.net) }).toEqual(ledger);
    // And they are the sums of the rows with a net.
    const moved = lines.slice(0, -1).filter((r) => r.net !== '');
    expect(kopecks(totals!.net)).toBe(moved.reduce((sum, r) => sum + kopecks(r.net), 0));
    expect(await verifyLedger(sys)).toMatchObject({ unbalanced: 0, balances_mismatched: 0 });
  });

  it('answers the same file to a dashboard session, with its headers', async () => {
    const viaKeys = await download(`/merchant/v1/reports/daily?shop_id=${shop.id}&date=${DAY}`, merchant.keys);
    const viaSession = await download(`/api/v1/reports/daily?shop_id=${shop.id}&date=${DAY}`, session);
    expect(viaSession.status).toBe(200);
    expect(viaSession.bytes.equals(viaKeys.bytes)).toBe(true);
    expect(viaKeys.bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(viaKeys.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(viaKeys.headers.get('content-disposition')).toBe(`attachment; filename="daily-report-${shop.id}-${DAY}-live.csv"`);
  });

  it("answers a cashier key its own shop's report", async () => {
    const viaCashier = await report(shop.id, DAY, { Authorization: `Bearer ${shop.cashierKey}` });
    expect(viaCashier).toEqual(lines);
  });

  it('shows nothing of the live day in test mode: an empty report with zero totals', async () => {
    expect(await report(shop.id, DAY, merchant.testKeys)).toEqual([
      { id: '', time: '', type: 'total', amount: '0.00', fee: '0.00', net: '0.00', order_id: '', destination: '', status: '' },
    ]);
  });

  it('reads the same rows page by page at any page size, across every kind of row', async () => {
    const db = new Db({ url: sys.database.url, schema: LINKS_SCHEMA, log: createLogger('daily-report-test', 'silent') });
    try {
      const deps = {
        reports: new DailyReportRepository(db),
        shops: { getShop: () => Promise.resolve({}) } as never,
        now: () => new Date(),
      };
      const identity = {
        kind: 'merchant' as const,
        merchant_id: merchant.id,
        auth: 'api_key' as const,
        mode: 'live' as const,
        email_confirmed: true,
      };
      for (const limit of [1, 2, 3]) {
        const ids: string[] = [];
        let cursor: string | null = null;
        for (let pages = 0; pages < 20; pages += 1) {
          const page = await getDailyReportPage(deps, identity, { shop_id: shop.id, date: DAY, limit, cursor });
          expect(page.rows.length).toBeLessThanOrEqual(limit);
          ids.push(...page.rows.map((r) => `${r.type}:${r.id}`));
          cursor = page.next_cursor;
          if (!page.has_more) break;
        }
        expect(ids).toEqual(lines.slice(0, -1).map((r) => `${r.type}:${r.id}`));
      }
    } finally {
      await db.close();
    }
  });
});

describe('the day boundary in Moscow time', () => {
  it('puts a payment at 20:59:59Z on one day and one at 21:00:00Z on the next', async () => {
    const other = await sys.shop(merchant.id);
    const before = await paidLink('100.00', 'before-midnight', other);
    const after = await paidLink('200.00', 'after-midnight', other);
    await placeTransaction(before, '2026-11-01T20:59:59Z');
    await placeTransaction(after, '2026-11-01T21:00:00Z');
    const first = await report(other.id, '2026-11-01');
    const second = await report(other.id, '2026-11-02');
    expect(first.map((r) => [r.type, r.id, r.time])).toEqual([
      ['payment', before, '2026-11-01T23:59:59+03:00'],
      ['total', '', ''],
    ]);
    expect(second.map((r) => [r.type, r.id, r.time])).toEqual([
      ['payment', after, '2026-11-02T00:00:00+03:00'],
      ['total', '', ''],
    ]);
    expect(first.at(-1)?.amount).toBe('100.00');
    expect(second.at(-1)?.amount).toBe('200.00');
  });
});

describe('bad input', () => {
  const path = (query: string) => `/merchant/v1/reports/daily?${query}`;
  const detailsOf = (res: { body: { error: { details?: { field: string }[] } } }) => res.body.error.details?.map((d) => d.field);

  it('is 400 naming date when it is missing, malformed or a day that does not exist', async () => {
    for (const query of [`shop_id=${shop.id}`, `shop_id=${shop.id}&date=20261120`, `shop_id=${shop.id}&date=2026-02-30`]) {
      const res = await sys.http.get(path(query), { headers: merchant.keys });
      expectError(res, 400, 'common.err.validation_failed');
      expect(detailsOf(res)).toEqual(['date']);
    }
  });

  it('is 400 naming date for a day after today in Moscow, and takes today', async () => {
    const tomorrow = new Date(Date.now() + 3 * 3600_000 + 24 * 3600_000).toISOString().slice(0, 10);
    const res = await sys.http.get(path(`shop_id=${shop.id}&date=${tomorrow}`), { headers: merchant.keys });
    expectError(res, 400, 'common.err.validation_failed');
    expect(detailsOf(res)).toEqual(['date']);
    const today = new Date(Date.now() + 3 * 3600_000).toISOString().slice(0, 10);
    expect((await download(path(`shop_id=${shop.id}&date=${today}`), merchant.keys)).status).toBe(200);
  });

  it('is 400 for a missing shop_id or an unknown parameter', async () => {
    expectError(await sys.http.get(path('date=2026-11-20'), { headers: merchant.keys }), 400, 'common.err.validation_failed');
    expectError(await sys.http.get(path(`shop_id=${shop.id}&date=2026-11-20&x=1`), { headers: merchant.keys }), 400, 'common.err.validation_failed');
  });

  it("is 404 for an unknown shop and 403 for another merchant's, on both route families", async () => {
    const stranger = await sys.merchantWithShop();
    expectError(await sys.http.get(path('shop_id=999999999&date=2026-11-20'), { headers: merchant.keys }), 404, 'common.err.not_found');
    expectError(await sys.http.get(path(`shop_id=${stranger.shop.id}&date=2026-11-20`), { headers: merchant.keys }), 403, 'common.err.forbidden');
    expectError(await sys.http.get(`/api/v1/reports/daily?shop_id=999999999&date=2026-11-20`, { headers: session }), 404, 'common.err.not_found');
    expectError(
      await sys.http.get(`/api/v1/reports/daily?shop_id=${stranger.shop.id}&date=2026-11-20`, { headers: session }),
      403,
      'common.err.forbidden',
    );
  });

  it("is 403 for a cashier key asking another shop's report, and 401 without credentials", async () => {
    const other = await sys.shop(merchant.id);
    expectError(
      await sys.http.get(path(`shop_id=${other.id}&date=2026-11-20`), { headers: { Authorization: `Bearer ${shop.cashierKey}` } }),
      403,
      'common.err.forbidden',
    );
    expectError(await sys.http.get(path(`shop_id=${shop.id}&date=2026-11-20`)), 401, 'common.err.unauthorized');
  });

  it('is 405 for another method', async () => {
    expectError(
      await sys.http.post(path(`shop_id=${shop.id}&date=2026-11-20`), {}, { headers: merchant.keys }),
      405,
      'common.err.method_not_allowed',
    );
  });
});
