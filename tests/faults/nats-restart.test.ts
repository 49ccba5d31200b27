import { eventually } from '@pl/testing';
import { expectError, type ApiResponse } from '../support/http';
import { PrivateNats } from '../support/private-servers';
import { sandboxPaymentId, startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * A real nats-server restart (SIGKILL, then a new process on the same port) under the whole platform.
 * The services run on; nobody restarts them.
 */

jest.setTimeout(60_000);

/** startSystem's NATS_REQUEST_TIMEOUT_MS. */
const NATS_TIMEOUT_MS = 2000;
/** Room above the NATS timeout for a busy two-core machine. */
const MARGIN_MS = 2000;
const WORKERS = 6;

let nats: PrivateNats;
let receiver: WebhookReceiver;
let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
beforeAll(async () => {
  nats = await PrivateNats.start();
  receiver = await WebhookReceiver.start();
  sys = await startSystem({ natsUrl: nats.url });
  ({ merchant, shop } = await sys.merchantWithShop({ webhookUrl: receiver.url }));
}, 60_000);
afterAll(async () => {
  await sys?.stop();
  await nats?.close();
  await receiver?.close();
}, 60_000);

const createLink = (): Promise<ApiResponse> =>
  sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '10.00' }, { headers: merchant.keys });
const readyz = async (): Promise<number> => (await fetch(`http://127.0.0.1:${sys.gatewayOpsPort}/readyz`)).status;

interface Call {
  startedAt: number;
  endedAt: number;
  res: ApiResponse;
}

it('answers in-flight and new requests 503 quickly while NATS is down, then serves again by itself once it is back', async () => {
  expect((await createLink()).status).toBe(201);
  expect(await readyz()).toBe(200);

  const calls: Call[] = [];
  let running = true;
  const worker = async (): Promise<void> => {
    while (running) {
      const startedAt = Date.now();
      const res = await createLink();
      calls.push({ startedAt, endedAt: Date.now(), res });
    }
  };
  const workers = Array.from({ length: WORKERS }, worker);
  let killedAt = 0;
  let restartedAt = 0;
  try {
    await eventually(() => calls.length >= 2 * WORKERS, 'creates before the kill', 10_000);
    killedAt = Date.now();
    await nats.kill();
    const readyzDownAfterMs = await eventually(async () => (await readyz()) === 503, 'readyz 503 without NATS', 5000);
    // Let requests that started during the outage run into it too.
    await eventually(() => calls.some((c) => c.startedAt > killedAt && c.res.status === 503), 'a create sent during the outage answered 503', 10_000);
    await nats.startServer();
    restartedAt = Date.now();
    const createsAgainAfterMs = await eventually(
      () => calls.some((c) => c.startedAt > restartedAt && c.res.status === 201),
      'creates 201 again',
      15_000,
    );
    const readyAgainAfterMs = await eventually(async () => (await readyz()) === 200, 'readyz 200 again', 15_000);
    console.log(
      `nats restart: readyz 503 after ${readyzDownAfterMs} ms; creates 201 again ${createsAgainAfterMs} ms and readyz 200 ${readyAgainAfterMs} ms after the restart`,
    );
  } finally {
    running = false;
    await Promise.all(workers);
  }

  const statuses = new Set(calls.map((c) => c.res.status));
  expect([...statuses].sort()).toEqual([201, 503]);
  for (const c of calls.filter((x) => x.res.status === 503)) {
    expectError(c.res, 503, 'common.err.unavailable');
    expect(c.res.headers.get('retry-after')).toBe('1');
  }
  // Nothing hangs: every request, in flight at the kill or sent during the outage, ends within the NATS timeout.
  const slowest = Math.max(...calls.map((c) => c.endedAt - c.startedAt));
  expect(slowest).toBeLessThan(NATS_TIMEOUT_MS + MARGIN_MS);
  const inFlightAtKill = calls.filter((c) => c.startedAt < killedAt && c.endedAt > killedAt);
  expect(inFlightAtKill.length).toBeGreaterThan(0);
  expect(inFlightAtKill.some((c) => c.res.status === 503)).toBe(true);
  console.log(
    `nats restart: ${calls.length} creates, ${calls.filter((c) => c.res.status === 503).length} answered 503, ` +
      `${inFlightAtKill.length} in flight at the kill, slowest ${slowest} ms`,
  );
});

it('after the restart, a whole payment runs again: create, provider callback, webhook (notifier asks shops over NATS)', async () => {
  const created = await createLink();
  expect(created.status).toBe(201);
  const paid = await sys.providerCallback(sandboxPaymentId(created.body.id), 'paid');
  expect(paid.status).toBe(200);
  const hook = await receiver.nthFor(created.body.id, 1);
  expect(hook.json.data.payment_link_id).toBe(created.body.id);
  const read = await sys.http.get(`/merchant/v1/payment-links/${created.body.id}`, { headers: merchant.keys });
  expect(read.body.status).toBe('paid');
});
