import { eventually, withDeadline } from '@pl/testing';
import { expectError, type ApiResponse } from '../support/http';
import { PrivatePostgres } from '../support/private-servers';
import { sandboxPaymentId, startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * A real Postgres crash (`pg_ctl stop -m immediate`) and restart while merchants create links and the
 * provider confirms payments. The services are not restarted: they must recover by themselves, lose no
 * accepted create and send every paid link's webhook exactly once.
 */

jest.setTimeout(90_000);

/** startSystem's NATS_REQUEST_TIMEOUT_MS. */
const NATS_TIMEOUT_MS = 2000;
/** Room above the NATS timeout for a busy two-core machine. */
const MARGIN_MS = 3000;
const WORKERS = 4;
const OUTAGE_MS = 2000;
/** How long a provider keeps retrying a callback that got 503. */
const CALLBACK_RETRY_MS = 20_000;

/** The fields a payment changes; every other field of a link reads back as it was created. */
const CHANGED_BY_PAYMENT = new Set(['status', 'paid_at', 'updated_at', 'gateway_provider', 'gateway_payment_id']);

let pg: PrivatePostgres;
let receiver: WebhookReceiver;
let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
beforeAll(async () => {
  pg = await PrivatePostgres.start();
  receiver = await WebhookReceiver.start();
  sys = await startSystem({ postgresHostUrl: pg.hostUrl });
  ({ merchant, shop } = await sys.merchantWithShop({ webhookUrl: receiver.url }));
}, 60_000);
afterAll(async () => {
  await sys?.stop();
  await pg?.close();
  await receiver?.close();
}, 60_000);

interface Call {
  what: 'create' | 'callback' | 'get';
  startedAt: number;
  ms: number;
  res: ApiResponse;
}

it('answers only 503 while Postgres restarts, then every accepted create reads back and every paid link gets one webhook', async () => {
  const calls: Call[] = [];
  const created = new Map<string, Record<string, unknown>>();
  const paid = new Set<string>();
  const record = async (what: Call['what'], fn: () => Promise<ApiResponse>): Promise<ApiResponse> => {
    const startedAt = Date.now();
    const res = await fn();
    calls.push({ what, startedAt, ms: Date.now() - startedAt, res });
    return res;
  };

  let running = true;
  const worker = async (n: number): Promise<void> => {
    for (let i = 0; running; i++) {
      const create = await record('create', () =>
        sys.http.post(
          '/merchant/v1/payment-links',
          { shop_id: shop.id, amount: `${100 + n}.${String(i % 100).padStart(2, '0')}`, order_id: `w${n}-${i}` },
          { headers: merchant.keys },
        ),
      );
      if (create.status !== 201) {
        await new Promise((r) => setTimeout(r, 50)); // a client's pause before it retries (shorter than Retry-After, to sample the outage)
        continue;
      }
      const id = create.body.id as string;
      created.set(id, create.body);
      // A provider retries a callback until it is accepted.
      const giveUpAt = Date.now() + CALLBACK_RETRY_MS;
      for (;;) {
        const callback = await record('callback', () => sys.providerCallback(sandboxPaymentId(id), 'paid'));
        if (callback.status === 200) {
          paid.add(id);
          break;
        }
        if (callback.status !== 503 || Date.now() > giveUpAt) break;
        await new Promise((r) => setTimeout(r, 100)); // the provider's retry pause
      }
      await record('get', () => sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: merchant.keys }));
    }
  };
  const workers = Array.from({ length: WORKERS }, (_, n) => worker(n));

  let crashedAt = 0;
  let restartedAt = 0;
  try {
    await eventually(() => paid.size >= WORKERS, 'payments before the crash', 20_000);
    crashedAt = Date.now();
    await pg.crash();
    // Down long enough for every background loop (outbox relay, delivery worker, Kafka consumer, sweeper) to hit it.
    await eventually(
      () => Date.now() - crashedAt >= OUTAGE_MS && calls.filter((c) => c.startedAt > crashedAt && c.res.status === 503).length >= WORKERS,
      '503s during the outage',
      10_000,
    );
    await pg.startServer();
    restartedAt = Date.now();
    const recoveredAfterMs = await eventually(
      () => calls.some((c) => c.what === 'callback' && c.startedAt > restartedAt && c.res.status === 200),
      'a payment after the restart',
      20_000,
    );
    console.log(`postgres restart: down ${restartedAt - crashedAt} ms, payments again ${recoveredAfterMs} ms after the restart`);
  } finally {
    running = false;
    await Promise.all(workers);
  }

  // During the outage: 503 common.err.unavailable with Retry-After, never a 500, never a hang.
  const byStatus = new Map<number, number>();
  for (const c of calls) byStatus.set(c.res.status, (byStatus.get(c.res.status) ?? 0) + 1);
  expect([...byStatus.keys()].filter((s) => ![200, 201, 503].includes(s))).toEqual([]);
  expect(byStatus.get(503) ?? 0).toBeGreaterThan(0);
  for (const c of calls.filter((x) => x.res.status === 503)) {
    expectError(c.res, 503, 'common.err.unavailable');
    expect(c.res.headers.get('retry-after')).toBe('1');
  }
  const slowest = Math.max(...calls.map((c) => c.ms));
  expect(slowest).toBeLessThan(NATS_TIMEOUT_MS + MARGIN_MS);
  console.log(`postgres restart: ${calls.length} requests ${JSON.stringify(Object.fromEntries(byStatus))}, slowest ${slowest} ms`);

  // Every accepted create is there, as created; every link whose callback was accepted is paid.
  expect(paid.size).toBe(created.size);
  for (const [id, body] of created) {
    const read = await sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: merchant.keys });
    expect(read.status).toBe(200);
    const unchanged = Object.fromEntries(Object.entries(body).filter(([k]) => !CHANGED_BY_PAYMENT.has(k)));
    expect(read.body).toMatchObject(unchanged);
    expect(read.body.status).toBe('paid');
  }

  // Every paid link's webhook arrives, under one webhook id, from one delivery.
  await withDeadline(Promise.all([...paid].map((id) => receiver.nthFor(id, 1))), 30_000, 'webhooks of the paid links');
  for (const id of paid) {
    expect(new Set(receiver.hitsFor(id).map((h) => h.headers['x-webhook-id']))).toHaveProperty('size', 1);
  }
  const deliveries = await sys.sql<{ payment_link_id: string; n: string }>(
    'SELECT payment_link_id, count(*) AS n FROM notifier.deliveries GROUP BY 1',
  );
  expect(deliveries.filter((d) => paid.has(d.payment_link_id)).map((d) => Number(d.n))).toEqual([...paid].map(() => 1));
  console.log(`postgres restart: ${created.size} links created and paid, ${receiver.hits.length} webhooks received`);
});
