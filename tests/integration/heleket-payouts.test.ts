// Crypto payouts paid through Heleket (docs/payouts.md, "How a payout is paid"; ADR 0044), against the real gateway,
// links, shops and notifier, Postgres, NATS and the Kafka mock, with the real payouts client and the Heleket fake:
// - an approved live crypto payout is marked processing and sent once (`POST /v1/payout` with the spec's fields);
// - Heleket's `paid` webhook pays it (`payout.paid`), its `fail` fails it with the money back (`payout.failed`);
// - a dropped webhook is completed by `payment:sync --payout` (status sync's read of `payout/info`);
// - a forged webhook (signed with the payment key) and one from outside HELEKET_CALLBACK_IPS are refused, 401;
// - a webhook replayed byte for byte, and a `fail` after `paid`, change nothing;
// - Heleket's refusal fails the payout with its reason; a create whose answer was lost is never sent blind: sync
//   reads `payout/info` first, finds it or sends the same order id again, and Heleket pays it once;
// and the ledger verifies clean at the end.
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { signedCallbackBody } from '@pl/provider-fakes';
import { payoutOrderId } from '@pl/providers';
import { eventually } from '@pl/testing';
import { runCli, renderOutcome } from '../../tools/admin/src/cli';
import { expectError, type ApiResponse } from '../support/http';
import { scrapedSum } from '../support/metrics';
import { expectLedgerClean } from '../support/money';
import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { createLiveLink } from '../support/live-links';

jest.setTimeout(60_000);

const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
let auth: Record<string, string>;
let destinationId: string;

beforeAll(async () => {
  sys = await startSystem({
    providerFakes: true,
    env: {
      PAYOUT_DESTINATION_COOLDOWN_HOURS: '0',
      PAYOUT_FEE: '1.50',
      PAYOUT_WORKER_INTERVAL_MS: '50',
      // Sync at its production pace: a webhook, not a read, settles what these tests watch; `payment:sync` reads now.
      PROVIDER_SYNC_FIRST_DELAY_MS: '600000',
      // A lost create's call is certainly over after twice this: sync may then send it again.
      PROVIDER_REQUEST_TIMEOUT_MS: '300',
      // The fake's webhooks come from this machine; nothing else may send them.
      HELEKET_CALLBACK_IPS: '127.0.0.1',
      RATE_LIMIT_SESSION_PER_MINUTE: '1000000',
    },
  });
  const made = await sys.merchantWithShop({ feePayer: 'client' });
  ({ merchant, shop } = made);
  auth = { Authorization: `Bearer ${await sys.login(merchant)}` };
  const dest = await sys.http.post(
    '/api/v1/payout-destinations',
    { type: 'crypto_address', crypto_address: { network: 'USDT-TRC20', address: TRON } },
    { headers: auth },
  );
  expect(dest.status).toBe(201);
  destinationId = dest.body.id as string;
  // The shop's money: a live crypto link paid through the fake.
  const link = await createLiveLink(sys, merchant, shop, '20000.00', 'payout-credit');
  const selected = await sys.http.post(`/p/${link}/select`, { method: 'crypto', network: 'USDT-TRC20' });
  expect(selected.status).toBe(200);
  sys.fakes.heleket.pay(selected.body.gateway_payment_id as string);
  await eventually(async () => (await balance()).available === '20000.00', 'the shop credited', 15_000, 50);
}, 90_000);

afterEach(() => {
  sys.fakes.heleket.callbackPolicy = { mode: 'send', delayMs: 0, repeat: 1 };
  sys.fakes.heleket.payoutBalanceKopecks = null;
  sys.fakes.heleket.clearFaults();
});

afterAll(async () => {
  if (!sys) return;
  await expectLedgerClean(sys);
  await sys.stop();
}, 60_000);

async function balance(): Promise<Record<string, string>> {
  const res = await sys.http.get(`/merchant/v1/balance?shop_id=${shop.id}`, { headers: merchant.keys });
  expect(res.status).toBe(200);
  return res.body as Record<string, string>;
}

interface PayoutRow {
  status: string;
  provider_payout_id: string | null;
  provider_status: string | null;
  failure_reason: string | null;
  updated_at: Date;
}

const rowOf = async (id: string): Promise<PayoutRow> =>
  (
    await sys.sql<PayoutRow & Record<string, unknown>>(
      'SELECT status, provider_payout_id, provider_status, failure_reason, updated_at FROM links.payouts WHERE id = $1',
      [id],
    )
  )[0]!;

const settles = (id: string, what: (row: PayoutRow) => boolean, description: string) =>
  eventually(async () => what(await rowOf(id)), description, 15_000, 25);

/** A payout of `amount` created by the owner (approved at once), and the moment Heleket has it. */
async function payout(amount: string): Promise<string> {
  const made = await sys.http.post('/api/v1/payouts', { shop_id: shop.id, amount, destination_id: destinationId }, { headers: auth });
  expect(made.status).toBe(201);
  expect(made.body.status).toBe('approved');
  return made.body.id as string;
}

async function handedOver(amount: string): Promise<{ id: string; orderId: string }> {
  const id = await payout(amount);
  await settles(id, (r) => r.status === 'processing' && r.provider_payout_id !== null, 'Heleket has the payout');
  return { id, orderId: payoutOrderId(id) };
}

const createsOf = (orderId: string) => sys.fakes.heleket.received.filter((r) => r.path === '/v1/payout' && r.body.includes(orderId));

/** Everything a webhook could change about a payout, for "nothing changed". */
async function stateOf(id: string): Promise<unknown> {
  return {
    row: await rowOf(id),
    outbox: await sys.sql("SELECT payload->>'event' AS event FROM links.outbox WHERE payload->'data'->>'id' = $1 ORDER BY created_at, id", [id]),
    postings: await sys.sql('SELECT type, amount FROM links.ledger_transactions WHERE payout_id = $1 ORDER BY created_at, id', [id]),
  };
}

const eventsOf = async (id: string): Promise<string[]> =>
  (
    await sys.sql<{ event: string }>(
      "SELECT payload->>'event' AS event FROM links.outbox WHERE payload->'data'->>'id' = $1 ORDER BY created_at, id",
      [id],
    )
  ).map((e) => e.event);

/** A payout webhook body as Heleket writes it, signed with `key`. */
function webhookBody(id: string, status: string, key: string): string {
  const p = sys.fakes.heleket.payout(payoutOrderId(id))!;
  return signedCallbackBody(
    {
      type: 'payout',
      uuid: p.uuid,
      order_id: p.orderId,
      amount: p.amount,
      merchant_amount: p.amount,
      commission: '0.00',
      is_final: true,
      status,
      currency: p.currency,
      network: p.network,
      payer_currency: p.payerCurrency,
      payer_amount: p.payerAmount,
    },
    key,
  );
}

const PATH = '/callbacks/v1/heleket-payouts';
const post = (body: string): Promise<ApiResponse> => sys.http.post(PATH, body, { headers: { 'content-type': 'application/json' } });

/** A webhook straight from 127.0.0.2, an address outside HELEKET_CALLBACK_IPS. */
const fromStranger = (body: string) =>
  new Promise<{ status: number; json: { error?: { code?: string } } }>((resolve, reject) => {
    const url = new URL(sys.baseUrl + PATH);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: '127.0.0.2',
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });

async function syncByAdmin(id: string): Promise<Record<string, unknown>> {
  const io = { readStdin: () => Promise.resolve(''), warn: () => undefined };
  const out = renderOutcome(await runCli(['payment:sync', '--payout', id], { ...sys.env }, io));
  expect({ code: out.exitCode, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(out.stdout) as Record<string, unknown>;
}

it('sends an approved crypto payout to Heleket once, with the spec fields, and its paid webhook pays it', async () => {
  const before = await balance();
  const { id, orderId } = await handedOver('500.00');
  const creates = createsOf(orderId);
  expect(creates).toHaveLength(1);
  expect(JSON.parse(creates[0]!.body)).toEqual({
    amount: '500.00',
    currency: 'RUB',
    order_id: orderId,
    address: TRON,
    is_subtract: true,
    network: 'tron',
    to_currency: 'USDT',
    url_callback: `${sys.env.PUBLIC_BASE_URL}/callbacks/v1/heleket-payouts`,
  });
  expect(orderId).toHaveLength(32);
  // Amount and fee left the shop's balance when the payout was made.
  expect(Number((await balance()).available)).toBeCloseTo(Number(before.available) - 501.5, 2);

  sys.fakes.heleket.setPayoutStatus(orderId, 'paid');
  await settles(id, (r) => r.status === 'paid', 'paid by the webhook');
  const [delivery] = sys.fakes.heleket.payoutDeliveries.filter((d) => d.uuid === sys.fakes.heleket.payout(orderId)!.uuid);
  expect(delivery).toMatchObject({ answer: 200 });
  expect(await stateOf(id)).toMatchObject({
    row: { status: 'paid', provider_status: 'paid' },
    outbox: [{ event: 'payout.created' }, { event: 'payout.paid' }],
    postings: [{ type: 'payout' }, { type: 'payout_paid' }],
  });
  const read = await sys.http.get(`/merchant/v1/payouts/${id}`, { headers: merchant.keys });
  expect(read.body).toMatchObject({ status: 'paid', amount: '500.00', fee: '1.50' });
  expect(read.body.paid_at).not.toBeNull();
  expect(createsOf(orderId)).toHaveLength(1);
});

it('fails a payout Heleket fails, with its reason, and gives the money back (payout.failed)', async () => {
  const before = await balance();
  const { id, orderId } = await handedOver('300.00');
  sys.fakes.heleket.setPayoutStatus(orderId, 'fail', 'Address is blacklisted');
  await settles(id, (r) => r.status === 'failed', 'failed by the webhook');
  expect(await rowOf(id)).toMatchObject({ failure_reason: 'Address is blacklisted', provider_status: 'fail' });
  expect(await eventsOf(id)).toEqual(['payout.created', 'payout.failed']);
  expect(await balance()).toMatchObject({ available: before.available, balance: before.balance });
  const read = await sys.http.get(`/api/v1/payouts/${id}`, { headers: auth });
  expect(read.body).toMatchObject({ status: 'failed', failure_reason: 'Address is blacklisted' });
});

it('completes a payout whose webhook was dropped by payment:sync --payout, which reads payout/info', async () => {
  const { id, orderId } = await handedOver('200.00');
  sys.fakes.heleket.callbackPolicy = { mode: 'drop', delayMs: 0, repeat: 1 };
  sys.fakes.heleket.setPayoutStatus(orderId, 'paid');
  expect((await rowOf(id)).status).toBe('processing');
  // What PayoutStuckAtHeleket reads: the payout waits at Heleket, seen by links' gauges (it leaves them once paid).
  expect(await scrapedSum(sys.linksOpsPort, 'payouts_waiting', { rail: 'heleket', status: 'processing' })).toBeGreaterThanOrEqual(1);
  expect(await scrapedSum(sys.linksOpsPort, 'payouts_waiting_oldest_age_seconds', { rail: 'heleket', status: 'processing' })).toBeGreaterThan(0);
  const infosBefore = sys.fakes.heleket.count('/v1/payout/info');
  const report = await syncByAdmin(id);
  expect(report).toEqual({
    id,
    provider_payout_id: sys.fakes.heleket.payout(orderId)!.uuid,
    provider_status: 'paid',
    status_before: 'processing',
    status_after: 'paid',
    created: false,
    error: null,
  });
  expect(sys.fakes.heleket.count('/v1/payout/info')).toBe(infosBefore + 1);
  expect(await eventsOf(id)).toEqual(['payout.created', 'payout.paid']);
  // Done: a second run reads nothing and changes nothing.
  expect(await syncByAdmin(id)).toMatchObject({ status_before: 'paid', status_after: 'paid', provider_status: null });
  expect(sys.fakes.heleket.count('/v1/payout/info')).toBe(infosBefore + 1);
  expect(createsOf(orderId)).toHaveLength(1);
});

it('refuses a forged webhook and one from outside the allowlist (401), and nothing changes', async () => {
  const { id } = await handedOver('150.00');
  const before = await stateOf(id);
  expectError(await post(webhookBody(id, 'paid', sys.env.HELEKET_PAYMENT_KEY!)), 401, 'common.err.unauthorized');
  const tampered = webhookBody(id, 'fail', sys.env.HELEKET_PAYOUT_KEY!).replace('"fail"', '"paid"');
  expectError(await post(tampered), 401, 'common.err.unauthorized');
  const foreign = await fromStranger(webhookBody(id, 'paid', sys.env.HELEKET_PAYOUT_KEY!));
  expect({ status: foreign.status, code: foreign.json.error?.code }).toEqual({ status: 401, code: 'common.err.unauthorized' });
  expect(await stateOf(id)).toEqual(before);
  // The genuine one from the allowed sender is taken.
  expect((await post(webhookBody(id, 'paid', sys.env.HELEKET_PAYOUT_KEY!))).status).toBe(200);
  expect((await rowOf(id)).status).toBe('paid');
});

it('answers a replayed webhook 200 and changes nothing; a fail after paid never gives the money back', async () => {
  const { id, orderId } = await handedOver('250.00');
  sys.fakes.heleket.setPayoutStatus(orderId, 'paid');
  await settles(id, (r) => r.status === 'paid', 'paid by the webhook');
  const uuid = sys.fakes.heleket.payout(orderId)!.uuid;
  const delivered = sys.fakes.heleket.payoutDeliveries.find((d) => d.uuid === uuid)!;
  const after = await stateOf(id);
  const balanceAfter = await balance();
  const replay = await post(delivered.body);
  expect({ status: replay.status, body: replay.body }).toEqual({ status: 200, body: { received: true } });
  expect(await stateOf(id)).toEqual(after);
  const contradicting = await post(webhookBody(id, 'system_fail', sys.env.HELEKET_PAYOUT_KEY!));
  expect(contradicting.status).toBe(200);
  expect(await stateOf(id)).toMatchObject({ row: { status: 'paid' }, outbox: [{ event: 'payout.created' }, { event: 'payout.paid' }] });
  expect(await balance()).toEqual(balanceAfter);
});

it('answers 200 to a verified webhook for a payout never sent to Heleket, changing nothing', async () => {
  const id = randomUUID();
  const body = signedCallbackBody(
    { type: 'payout', uuid: randomUUID(), order_id: payoutOrderId(id), amount: '100.00', is_final: true, status: 'paid', currency: 'RUB' },
    sys.env.HELEKET_PAYOUT_KEY!,
  );
  const res = await post(body);
  expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { received: true } });
  expect(await sys.sql('SELECT id FROM links.payouts WHERE id = $1', [id])).toEqual([]);
});

it("fails a payout Heleket refuses, with Heleket's message, and gives the money back", async () => {
  const before = await balance();
  sys.fakes.heleket.payoutBalanceKopecks = 0n;
  const id = await payout('120.00');
  await settles(id, (r) => r.status === 'failed', 'failed on the refusal');
  expect(await rowOf(id)).toMatchObject({ failure_reason: 'Not enough funds on the business balance', provider_payout_id: null });
  expect(await eventsOf(id)).toEqual(['payout.created', 'payout.failed']);
  expect(await balance()).toMatchObject({ available: before.available });
  expect(sys.fakes.heleket.payout(payoutOrderId(id))).toBeUndefined();
});

it('never sends a create blind after a lost answer: sync reads payout/info and finds the payout Heleket made', async () => {
  sys.fakes.heleket.fault('/v1/payout', { kind: 'apply-then-status', status: 502 });
  const id = await payout('130.00');
  const orderId = payoutOrderId(id);
  await eventually(async () => sys.fakes.heleket.payout(orderId) !== undefined, 'Heleket made it', 15_000, 25);
  // Its answer was lost: processing, no uuid recorded, and nothing sent again by the worker.
  await settles(id, (r) => r.status === 'processing', 'processing');
  expect((await rowOf(id)).provider_payout_id).toBeNull();
  const report = await syncByAdmin(id);
  expect(report).toMatchObject({ status_before: 'processing', status_after: 'processing', provider_status: 'process', created: false, error: null });
  expect((await rowOf(id)).provider_payout_id).toBe(sys.fakes.heleket.payout(orderId)!.uuid);
  expect(createsOf(orderId)).toHaveLength(1);
  sys.fakes.heleket.setPayoutStatus(orderId, 'paid');
  await settles(id, (r) => r.status === 'paid', 'paid by the webhook');
});

it('sends the same order id again only when payout/info shows none, and Heleket pays it once', async () => {
  sys.fakes.heleket.fault('/v1/payout', { kind: 'status', status: 503 });
  const id = await payout('140.00');
  const orderId = payoutOrderId(id);
  await eventually(async () => createsOf(orderId).length === 1, 'the create tried', 15_000, 25);
  await settles(id, (r) => r.status === 'processing', 'processing');
  expect(sys.fakes.heleket.payout(orderId)).toBeUndefined();
  // Within twice the call's deadline the first call may still be in flight: sync reads, and sends nothing.
  let report: Record<string, unknown> = {};
  await eventually(
    async () => {
      report = await syncByAdmin(id);
      return report.created === true;
    },
    'sync sent it again once the first call was over',
    15_000,
    100,
  );
  expect(report).toMatchObject({ status_after: 'processing', provider_status: 'process', error: null });
  expect(createsOf(orderId)).toHaveLength(2);
  expect([...sys.fakes.heleket.payouts.values()].filter((p) => p.orderId === orderId)).toHaveLength(1);
  sys.fakes.heleket.setPayoutStatus(orderId, 'paid');
  await settles(id, (r) => r.status === 'paid', 'paid by the webhook');
});
