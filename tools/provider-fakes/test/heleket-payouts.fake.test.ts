import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fakeSign, HeleketFake } from '../src/heleket';

const KEYS = { merchantId: 'b6a3e8b2-0c1e-4f0a-9d6f-6a0c9b7d1e22', paymentKey: 'fake-payment-key', payoutKey: 'fake-payout-key' };

let fake: HeleketFake;
let hook: Server;
let hookUrl: string;
const hooked: string[] = [];
let hookWaiters: { n: number; resolve: () => void }[] = [];

beforeAll(async () => {
  fake = await HeleketFake.start(KEYS);
  // Any receiver: the fake's webhooks are read here as bytes, apart from the adapter.
  hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hooked.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200).end('{}');
      hookWaiters = hookWaiters.filter((w) => (hooked.length >= w.n ? (w.resolve(), false) : true));
    });
  });
  hook.listen(0, '127.0.0.1');
  await once(hook, 'listening');
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/callbacks/v1/heleket-payouts`;
});

afterAll(async () => {
  await fake?.stop();
  hook?.closeAllConnections();
  await new Promise((r) => hook?.close(r));
});

const hooks = (n: number): Promise<void> => (hooked.length >= n ? Promise.resolve() : new Promise((resolve) => hookWaiters.push({ n, resolve })));

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the fake's JSON answer; the assertions are its type check
async function call(path: string, body: string, key = KEYS.payoutKey): Promise<{ status: number; json: any }> {
  const res = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', merchant: KEYS.merchantId, sign: fakeSign(body, key) },
    body,
  });
  return { status: res.status, json: await res.json() };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the control API's JSON answer
async function control(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${fake.url}${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, json: await res.json() };
}

const payout = (orderId: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    amount: '1500.00',
    currency: 'RUB',
    order_id: orderId,
    address: 'TXguLRFtrAFrEDA17WuPfrxB84jVzJcNNV',
    is_subtract: true,
    network: 'tron',
    to_currency: 'USDT',
    url_callback: hookUrl,
    ...extra,
  });

describe('the Heleket fake pays out as the reference documents', () => {
  it('takes payouts and their info with the payout key only', async () => {
    expect(await call('/v1/payout', payout('k1'), KEYS.paymentKey)).toMatchObject({ status: 401, json: { state: 1, message: 'Invalid Sign' } });
    expect(await call('/v1/payout/info', JSON.stringify({ order_id: 'k1' }), KEYS.paymentKey)).toMatchObject({ status: 401 });
    expect(fake.payout('k1')).toBeUndefined();
  });

  it('answers 422 with the failing fields: order id over 32 characters, is_subtract, to_currency for a fiat amount', async () => {
    const body = JSON.stringify({ amount: '1,5', currency: 'RUB', order_id: 'x'.repeat(33), address: 'T', priority: 'urgent' });
    expect(await call('/v1/payout', body)).toEqual({
      status: 422,
      json: {
        state: 1,
        errors: {
          amount: ['validation.numeric'],
          order_id: ['validation.max.string'],
          is_subtract: ['validation.required'],
          to_currency: ['validation.required_if'],
          priority: ['validation.in'],
        },
      },
    });
    expect(await call('/v1/payout/info', '{}')).toMatchObject({ status: 422, json: { errors: { order_id: ['validation.required_without'] } } });
  });

  it('takes an order id once: a second create is refused and pays nothing, and every create is counted', async () => {
    const before = fake.count('/v1/payout');
    const first = await call('/v1/payout', payout('once-1'));
    expect(first).toMatchObject({ status: 200, json: { state: 0, result: { status: 'process', is_final: false, payer_currency: 'USDT' } } });
    expect(first.json.result).not.toHaveProperty('order_id');
    expect(await call('/v1/payout', payout('once-1', { amount: '9.00' }))).toEqual({
      status: 200,
      json: { state: 1, message: 'Payout with this order_id already exists' },
    });
    expect(fake.count('/v1/payout')).toBe(before + 2);
    expect([...fake.payouts.values()].filter((p) => p.orderId === 'once-1')).toHaveLength(1);
    // payout/info: order_id wins over uuid when both are given; an unknown one is 404 "Payout not found".
    const info = await call('/v1/payout/info', JSON.stringify({ uuid: 'nope', order_id: 'once-1' }));
    expect(info.json.result).toMatchObject({ uuid: first.json.result.uuid, order_id: 'once-1', amount: '1500.00' });
    expect(await call('/v1/payout/info', JSON.stringify({ uuid: first.json.result.uuid }))).toMatchObject({
      json: { result: { order_id: 'once-1' } },
    });
    expect(await call('/v1/payout/info', JSON.stringify({ order_id: 'never' }))).toEqual({
      status: 404,
      json: { state: 1, message: 'Payout not found' },
    });
  });

  it('pays from a business balance when one is set over its control API, and refuses what it cannot cover', async () => {
    expect(await control('POST', '/_fake/payouts/balance', { balance: '2000.00' })).toMatchObject({ status: 200 });
    expect((await call('/v1/payout', payout('bal-1'))).json.result.balance).toBe('500.00');
    expect(await call('/v1/payout', payout('bal-2'))).toMatchObject({ json: { state: 1, message: 'Not enough funds on the business balance' } });
    expect((await control('GET', '/_fake/state')).json.payout_balance).toBe('500.00');
    expect(await control('POST', '/_fake/payouts/balance', { balance: 'lots' })).toMatchObject({ status: 400 });
    await control('POST', '/_fake/payouts/balance', { balance: null });
  });

  it('moves a payout over its control API (by order id or uuid) and sends its webhook signed with the payout key', async () => {
    const made = await call('/v1/payout', payout('hook-1'));
    const n = hooked.length;
    expect(await control('POST', '/_fake/payouts/hook-1/status', { status: 'paid' })).toMatchObject({ status: 200, json: { status: 'paid' } });
    const uuid: string = made.json.result.uuid;
    expect(await control('POST', `/_fake/payouts/${uuid}/status`, { status: 'fail', fail_reason: 'aml / check' })).toMatchObject({
      status: 200,
      json: { status: 'fail', txid: null, failReason: 'aml / check' },
    });
    await hooks(n + 2);
    const [paid, failed] = hooked.slice(n).map((b) => JSON.parse(b) as Record<string, unknown>);
    expect(paid).toMatchObject({ type: 'payout', uuid, order_id: 'hook-1', status: 'paid', is_final: true, txid: expect.any(String) });
    expect(failed).toMatchObject({ status: 'fail', fail_reason: 'aml / check' });
    expect(failed).not.toHaveProperty('txid');
    for (const body of hooked.slice(n)) {
      const signed = body.replace(/,"sign":"[0-9a-f]{32}"\}$/, '}');
      expect(body).toBe(`${signed.slice(0, -1)},"sign":"${fakeSign(signed, KEYS.payoutKey)}"}`);
    }
    expect(hooked[n + 1]).toContain('"fail_reason":"aml \\/ check"');
    expect(await control('POST', '/_fake/payouts/nope/status', { status: 'paid' })).toMatchObject({ status: 404 });
    expect(await control('POST', '/_fake/payouts/hook-1/status', { status: 'refund_paid' })).toMatchObject({ status: 400 });
  });

  it('records a create and drops the connection under apply-then-drop, armed over the control API; counts show in its state', async () => {
    await control('POST', '/_fake/faults', { path: '/v1/payout', fault: { kind: 'apply-then-drop' } });
    await expect(call('/v1/payout', payout('drop-1'))).rejects.toThrow();
    expect(fake.payout('drop-1')).toBeDefined();
    const state = await control('GET', '/_fake/state');
    expect(state.json.counts['/v1/payout']).toBe(fake.count('/v1/payout'));
    expect(state.json.payouts).toEqual(expect.arrayContaining([expect.objectContaining({ orderId: 'drop-1', status: 'process' })]));
  });
});
