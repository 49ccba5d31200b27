import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  heleketPayoutCallbackUrl,
  heleketPayouts,
  providerCircuit,
  type CreatePayoutRequest,
  type HeleketPayouts,
  type PayoutCallbackVerdict,
  type ProviderCallEvent,
} from '@pl/providers';
import { HeleketFake, signedCallbackBody } from '../src/heleket';

const KEYS = { merchantId: '3fa85f64-5717-4562-b3fc-2c963f66afa6', paymentKey: 'fake-payment-key-1', payoutKey: 'fake-payout-key-2' };
const CTX = { timeoutMs: 5000 };
const PAYOUT_ID = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const ORDER_ID = 'a1b2c3d4e5f64a7b8c9d0e1f2a3b4c5d';

let fake: HeleketFake;
let receiver: Server;
let receiverUrl: string;
let client: HeleketPayouts;
const verdicts: PayoutCallbackVerdict[] = [];

function makeClient(overrides: { payoutKey?: string; callbackIps?: readonly string[]; failures?: number; calls?: ProviderCallEvent[] } = {}) {
  const calls = overrides.calls;
  return heleketPayouts({
    apiUrl: fake.url,
    merchantId: KEYS.merchantId,
    payoutKey: overrides.payoutKey ?? KEYS.payoutKey,
    callbackIps: overrides.callbackIps ?? ['127.0.0.1'],
    circuit: providerCircuit('heleket', {
      failures: overrides.failures ?? 100,
      cooldownMs: 60_000,
      ...(calls ? { observer: { call: (e: ProviderCallEvent) => void calls.push(e) } } : {}),
    }),
  });
}

/** A payout request with a fresh payout id (each test its own order id), its webhooks to the test's receiver. */
function request(overrides: Partial<CreatePayoutRequest> = {}): CreatePayoutRequest {
  return {
    payoutId: randomUUID(),
    amountKopecks: 150_000,
    network: 'USDT-TRC20',
    address: 'TXguLRFtrAFrEDA17WuPfrxB84jVzJcNNV',
    callbackUrl: heleketPayoutCallbackUrl(receiverUrl),
    ...overrides,
  };
}

const orderOf = (payoutId: string): string => payoutId.replace(/-/g, '');

beforeAll(async () => {
  fake = await HeleketFake.start(KEYS);
  // The platform's payout callback route, reduced to the client's verdict: what the gateway will answer Heleket.
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const verdict = client.verifyPayoutCallback({
        rawBody: Buffer.concat(chunks),
        header: (name) => req.headers[name.toLowerCase()] as string | undefined,
        remoteAddress: req.socket.remoteAddress ?? '',
      });
      verdicts.push(verdict);
      res.writeHead(verdict.reply.status, { 'content-type': verdict.reply.contentType }).end(verdict.reply.body);
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await fake?.stop();
  receiver?.closeAllConnections();
  await new Promise((r) => receiver?.close(r));
});

beforeEach(() => {
  client = makeClient();
  fake.callbackPolicy = { mode: 'send', delayMs: 0, repeat: 1 };
  fake.payoutBalanceKopecks = null;
  fake.clearFaults();
});

describe('Heleket payouts against the fake, over HTTP', () => {
  it('creates a payout with the documented fields, signed with the payout key over the exact bytes sent (escaped slashes)', async () => {
    const before = fake.received.length;
    const result = await client.createPayout(
      request({ payoutId: PAYOUT_ID, callbackUrl: 'https://pay.example.com/callbacks/v1/heleket-payouts' }),
      CTX,
    );
    const sent = fake.received[before]!;
    expect(sent.path).toBe('/v1/payout');
    expect(sent.headers.merchant).toBe(KEYS.merchantId);
    expect(sent.headers.traceparent).toBeUndefined();
    // Text and signature computed apart (Python: json.dumps with '/' as '\/', md5(base64(text) + payout key)).
    expect(sent.body).toBe(
      '{"amount":"1500.00","currency":"RUB","order_id":"a1b2c3d4e5f64a7b8c9d0e1f2a3b4c5d","address":"TXguLRFtrAFrEDA17WuPfrxB84jVzJcNNV",' +
        '"is_subtract":true,"network":"tron","to_currency":"USDT","url_callback":"https:\\/\\/pay.example.com\\/callbacks\\/v1\\/heleket-payouts"}',
    );
    expect(sent.headers.sign).toBe('b16c14d687caf15abb4aa65b825476fe');
    const payout = fake.payout(ORDER_ID)!;
    expect(result).toEqual({
      outcome: 'accepted',
      payoutId: PAYOUT_ID,
      orderId: ORDER_ID,
      providerPayoutId: payout.uuid,
      status: 'processing',
      providerStatus: 'process',
      failureReason: null,
      txid: null,
      payerAmount: payout.payerAmount,
      payerCurrency: 'USDT',
      address: 'TXguLRFtrAFrEDA17WuPfrxB84jVzJcNNV',
    });
    expect(payout).toMatchObject({ amount: '1500.00', currency: 'RUB', isSubtract: true, network: 'tron', payerCurrency: 'USDT' });
  });

  it.each([
    ['USDT-ERC20', 'USDT', 'eth'],
    ['USDT-TON', 'USDT', 'ton'],
    ['BTC-BTC', 'BTC', 'btc'],
    ['ETH-ETH', 'ETH', 'eth'],
    ['TON-TON', 'TON', 'ton'],
  ] as const)('pays %s as %s on %s', async (network, coin, chain) => {
    const req = request({ network });
    expect(await client.createPayout(req, CTX)).toMatchObject({ outcome: 'accepted' });
    expect(fake.payout(orderOf(req.payoutId))).toMatchObject({ payerCurrency: coin, network: chain });
  });

  it('reads every payout status from payout/info by order id, signed with the payout key', async () => {
    const req = request();
    await client.createPayout(req, CTX);
    const before = fake.received.length;
    expect(await client.payoutInfo(req.payoutId, CTX)).toMatchObject({ status: 'processing', providerStatus: 'process', payoutId: req.payoutId });
    expect(JSON.parse(fake.received[before]!.body)).toEqual({ order_id: orderOf(req.payoutId) });
    for (const [word, status, reason] of [
      ['check', 'processing', null],
      ['process', 'processing', null],
      ['paid', 'paid', null],
      ['fail', 'failed', 'fail'],
      ['cancel', 'failed', 'cancel'],
      ['system_fail', 'failed', 'system_fail'],
    ] as const) {
      fake.callbackPolicy = { mode: 'drop', delayMs: 0, repeat: 1 };
      fake.setPayoutStatus(req.payoutId.replace(/-/g, ''), word);
      expect(await client.payoutInfo(req.payoutId, CTX)).toMatchObject({ status, providerStatus: word, failureReason: reason });
    }
    fake.setPayoutStatus(orderOf(req.payoutId), 'fail', 'address error');
    expect(await client.payoutInfo(req.payoutId, CTX)).toMatchObject({ status: 'failed', failureReason: 'address error' });
  });

  it('answers not_found for a payout Heleket does not know', async () => {
    const payoutId = randomUUID();
    expect(await client.payoutInfo(payoutId, CTX)).toEqual({ status: 'not_found', payoutId });
  });

  it.each([
    ['an error answer after Heleket recorded it', { kind: 'apply-then-status', status: 502 } as const, 'http_5xx'],
    ['the connection dropped after Heleket recorded it', { kind: 'apply-then-drop' } as const, 'network'],
    ['no answer before the deadline', { kind: 'apply-then-hang' } as const, 'timeout'],
  ])('never sends a create again whose answer was lost (%s): payoutInfo finds the payout', async (_what, fault, why) => {
    const req = request();
    const before = fake.count('/v1/payout');
    fake.fault('/v1/payout', fault);
    expect(await client.createPayout(req, { timeoutMs: 1000 })).toEqual({ outcome: 'unknown', why });
    const found = await client.payoutInfo(req.payoutId, CTX);
    expect(found).toMatchObject({ status: 'processing', providerPayoutId: fake.payout(orderOf(req.payoutId))?.uuid });
    // The caller's rule: an unknown outcome is read, and sent again only on not_found. Found: nothing more is sent.
    expect(fake.count('/v1/payout')).toBe(before + 1);
    expect([...fake.payouts.values()].filter((p) => p.orderId === orderOf(req.payoutId))).toHaveLength(1);
  });

  it('sends a create again that never reached Heleket (payoutInfo: not_found), and pays once', async () => {
    const req = request();
    const before = fake.count('/v1/payout');
    fake.fault('/v1/payout', { kind: 'status', status: 503 });
    expect(await client.createPayout(req, CTX)).toEqual({ outcome: 'unknown', why: 'http_5xx' });
    expect(await client.payoutInfo(req.payoutId, CTX)).toMatchObject({ status: 'not_found' });
    expect(await client.createPayout(req, CTX)).toMatchObject({ outcome: 'accepted', status: 'processing' });
    expect(fake.count('/v1/payout')).toBe(before + 2);
    expect(fake.payout(orderOf(req.payoutId))).toBeDefined();
  });

  it('answers a repeated order id with the payout Heleket already has, and Heleket pays it once', async () => {
    const req = request();
    const first = await client.createPayout(req, CTX);
    const again = await client.createPayout({ ...req, amountKopecks: 999_900 }, CTX);
    expect(first).toMatchObject({ outcome: 'accepted' });
    expect(again).toMatchObject({ outcome: 'already_exists', status: 'processing', payoutId: req.payoutId });
    expect(again.outcome === 'already_exists' && first.outcome === 'accepted' && again.providerPayoutId === first.providerPayoutId).toBe(true);
    expect([...fake.payouts.values()].filter((p) => p.orderId === orderOf(req.payoutId))).toEqual([expect.objectContaining({ amount: '1500.00' })]);
  });

  it('keeps the outcome unknown when a repeat is refused as a taken order id that payout/info does not show yet', async () => {
    const req = request();
    await client.createPayout(req, CTX);
    fake.fault('/v1/payout/info', { kind: 'status', status: 404 });
    expect(await client.createPayout(req, CTX)).toEqual({ outcome: 'unknown', why: 'bad_answer' });
    expect(await client.payoutInfo(req.payoutId, CTX)).toMatchObject({ status: 'processing' });
  });

  it("reads a business refusal as refused with Heleket's message, and nothing is paid", async () => {
    fake.payoutBalanceKopecks = 100_000n;
    const req = request();
    expect(await client.createPayout(req, CTX)).toEqual({ outcome: 'refused', message: 'Not enough funds on the business balance', httpStatus: 200 });
    expect(fake.payout(orderOf(req.payoutId))).toBeUndefined();
    fake.payoutBalanceKopecks = null;
    const saved = fake.services;
    fake.services = saved.map((s) => (s.currency === 'TON' ? { ...s, is_available: false } : s));
    try {
      expect(await client.createPayout(request({ network: 'TON-TON' }), CTX)).toMatchObject({
        outcome: 'refused',
        message: 'The payout method is not available',
      });
    } finally {
      fake.services = saved;
    }
  });

  it('reads a wrong payout key as an unknown outcome (our configuration, for the circuit and the alerts), not a refusal', async () => {
    const wrong = makeClient({ payoutKey: KEYS.paymentKey });
    expect(await wrong.createPayout(request(), CTX)).toEqual({ outcome: 'unknown', why: 'bad_answer' });
    await expect(wrong.payoutInfo(randomUUID(), CTX)).rejects.toMatchObject({ name: 'ProviderUnavailableError', why: 'bad_answer' });
  });

  it('answers late under a delay fault, and an unknown outcome at the deadline', async () => {
    fake.fault('/v1/payout', { kind: 'delay', ms: 50 });
    expect(await client.createPayout(request(), CTX)).toMatchObject({ outcome: 'accepted' });
    fake.fault('/v1/payout/info', { kind: 'hang' });
    await expect(client.payoutInfo(randomUUID(), { timeoutMs: 200 })).rejects.toMatchObject({ why: 'timeout' });
  });

  it("runs under Heleket's circuit: unknown outcomes open it, then a create is answered at once without a request", async () => {
    const calls: ProviderCallEvent[] = [];
    const guarded = makeClient({ failures: 2, calls });
    fake.fault('/v1/payout', { kind: 'status', status: 500, times: 2 });
    await guarded.createPayout(request(), CTX);
    await guarded.createPayout(request(), CTX);
    const before = fake.count('/v1/payout');
    expect(await guarded.createPayout(request(), CTX)).toEqual({ outcome: 'unknown', why: 'circuit_open' });
    expect(fake.count('/v1/payout')).toBe(before);
    expect(calls.map((c) => [c.provider, c.operation, c.outcome])).toEqual([
      ['heleket', 'create_payout', 'unavailable'],
      ['heleket', 'create_payout', 'unavailable'],
      ['heleket', 'create_payout', 'circuit_open'],
    ]);
  });
});

describe("the fake's payout webhooks, verified by the client", () => {
  it('sends a signed webhook on each command, which the client verifies (200) and reads', async () => {
    const req = request();
    await client.createPayout(req, CTX);
    const n = fake.payoutDeliveries.length;
    const seen = verdicts.length;
    fake.setPayoutStatus(orderOf(req.payoutId), 'paid');
    const [delivery] = (await fake.payoutDeliveriesReach(n + 1)).slice(n);
    expect(delivery).toMatchObject({ status: 'paid', answer: 200 });
    expect(delivery?.body).toContain('"type":"payout"');
    expect(verdicts[seen]).toMatchObject({ ok: true, state: { status: 'paid', payoutId: req.payoutId, txid: expect.any(String) } });
  });

  it.each(['fail', 'cancel', 'system_fail'] as const)('sends %s as a failure with its reason', async (word) => {
    const req = request();
    await client.createPayout(req, CTX);
    const n = fake.payoutDeliveries.length;
    const seen = verdicts.length;
    fake.setPayoutStatus(orderOf(req.payoutId), word, word === 'fail' ? 'address error / aml' : null);
    const [delivery] = (await fake.payoutDeliveriesReach(n + 1)).slice(n);
    expect(delivery?.answer).toBe(200);
    expect(verdicts[seen]).toMatchObject({
      ok: true,
      state: { status: 'failed', failureReason: word === 'fail' ? 'address error / aml' : word, txid: null },
    });
  });

  it('is refused (401) when forged: signed with the payment key, or from an address outside the allowlist', async () => {
    const req = request();
    const accepted = await client.createPayout(req, CTX);
    if (accepted.outcome !== 'accepted') throw new Error('expected the payout accepted');
    const fields = {
      type: 'payout',
      uuid: accepted.providerPayoutId,
      order_id: orderOf(req.payoutId),
      amount: '1500.00',
      status: 'paid',
      is_final: true,
    };
    const forged = await fetch(req.callbackUrl, { method: 'POST', body: signedCallbackBody(fields, KEYS.paymentKey) });
    expect(forged.status).toBe(401);
    const genuine = await fetch(req.callbackUrl, { method: 'POST', body: signedCallbackBody(fields, KEYS.payoutKey) });
    expect(genuine.status).toBe(200);
    client = makeClient({ callbackIps: ['31.133.220.8'] });
    const n = fake.payoutDeliveries.length;
    fake.setPayoutStatus(orderOf(req.payoutId), 'paid');
    const [delivery] = (await fake.payoutDeliveriesReach(n + 1)).slice(n);
    expect(delivery?.answer).toBe(401);
  });

  it('holds, repeats and drops payout webhooks under the callback policy, apart from the invoices', async () => {
    const req = request();
    await client.createPayout(req, CTX);
    const invoices = fake.deliveries.length;
    const n = fake.payoutDeliveries.length;
    fake.callbackPolicy = { mode: 'hold', delayMs: 0, repeat: 2 };
    fake.setPayoutStatus(orderOf(req.payoutId), 'check');
    fake.setPayoutStatus(orderOf(req.payoutId), 'paid');
    await fake.releaseCallbacks({ reverse: true });
    fake.callbackPolicy = { mode: 'drop', delayMs: 0, repeat: 1 };
    fake.setPayoutStatus(orderOf(req.payoutId), 'paid');
    const delivered = (await fake.payoutDeliveriesReach(n + 4)).slice(n);
    expect(delivered.map((d) => [d.status, d.answer])).toEqual([
      ['paid', 200],
      ['paid', 200],
      ['check', 200],
      ['check', 200],
    ]);
    expect(fake.payoutDeliveries).toHaveLength(n + 4);
    expect(fake.deliveries).toHaveLength(invoices);
  });
});
