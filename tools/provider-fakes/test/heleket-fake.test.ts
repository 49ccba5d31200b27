import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fakeSign, HeleketFake } from '../src/heleket';

const KEYS = { merchantId: 'b6a3e8b2-0c1e-4f0a-9d6f-6a0c9b7d1e22', paymentKey: 'fake-payment-key', payoutKey: 'fake-payout-key' };

let fake: HeleketFake;

beforeAll(async () => {
  fake = await HeleketFake.start(KEYS);
});

afterAll(async () => {
  await fake?.stop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the fake's JSON answer; the assertions are its type check
async function call(path: string, body: string, opts: { key?: string; merchant?: string } = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', merchant: opts.merchant ?? KEYS.merchantId, sign: fakeSign(body, opts.key ?? KEYS.paymentKey) },
    body,
  });
  return { status: res.status, json: await res.json() };
}

const CREATE = JSON.stringify({
  amount: '900.00',
  currency: 'RUB',
  order_id: 'order-1',
  to_currency: 'USDT',
  network: 'tron',
  url_callback: 'https://x.example/cb',
});

describe('the Heleket fake checks requests as the reference documents them', () => {
  it('refuses an unknown merchant and a bad signature with 401', async () => {
    expect(await call('/v1/payment', CREATE, { merchant: 'someone' })).toMatchObject({ status: 401, json: { state: 1 } });
    expect(await call('/v1/payment', CREATE, { key: 'wrong' })).toMatchObject({ status: 401, json: { state: 1, message: 'Invalid Sign' } });
  });

  it('refuses a refund signed with the payment key: refunds take the payout key', async () => {
    const body = JSON.stringify({ uuid: 'u', address: 'a', is_subtract: true });
    expect(await call('/v1/payment/refund', body)).toMatchObject({ status: 401 });
  });

  it('answers 422 with the failing fields', async () => {
    const body = JSON.stringify({ currency: 'RUB', order_id: 'bad id!', lifetime: 10, url_callback: 'x' });
    expect(await call('/v1/payment', body)).toEqual({
      status: 422,
      json: {
        state: 1,
        errors: {
          amount: ['validation.required'],
          order_id: ['validation.alpha_dash'],
          url_callback: ['validation.between.string'],
          lifetime: ['validation.between.numeric'],
        },
      },
    });
    expect(await call('/v1/payment/info', '{}')).toMatchObject({ status: 422, json: { errors: { uuid: ['validation.required_without'] } } });
  });

  it('creates an invoice, finds it by uuid or order id (order id wins), and is steered over its control API', async () => {
    const created = await call('/v1/payment', CREATE);
    expect(created).toMatchObject({
      status: 200,
      json: { state: 0, result: { order_id: 'order-1', payer_amount: '10.000000', payment_status: 'check' } },
    });
    const uuid: string = created.json.result.uuid;
    expect((await call('/v1/payment/info', JSON.stringify({ uuid: 'nope', order_id: 'order-1' }))).json.result.uuid).toBe(uuid);
    const moved = await fetch(`${fake.url}/_fake/invoices/${uuid}/status`, {
      method: 'POST',
      body: JSON.stringify({ status: 'paid_over', payment_amount: '11.000000' }),
    });
    expect(moved.status).toBe(200);
    expect((await call('/v1/payment/info', JSON.stringify({ uuid }))).json.result).toMatchObject({
      payment_status: 'paid_over',
      payment_amount: '11.000000',
      is_final: true,
    });
    const state = (await (await fetch(`${fake.url}/_fake/state`)).json()) as { counts: Record<string, number> };
    expect(state.counts['/v1/payment']).toBeGreaterThanOrEqual(1);
  });

  it('switches an item of the services list over its control API, and answers 404 for an unknown one', async () => {
    const saved = fake.services;
    try {
      const off = await fetch(`${fake.url}/_fake/services`, {
        method: 'POST',
        body: JSON.stringify({ currency: 'BTC', network: 'btc', is_enabled: false }),
      });
      expect(await off.json()).toMatchObject({ currency: 'BTC', network: 'btc', is_available: true, is_enabled: false });
      const listed = (await call('/v1/payment/services', '')).json.result as { currency: string; is_enabled: boolean }[];
      expect(listed.find((s) => s.currency === 'BTC')?.is_enabled).toBe(false);
      const unknown = await fetch(`${fake.url}/_fake/services`, { method: 'POST', body: JSON.stringify({ currency: 'DOGE', network: 'doge' }) });
      expect(unknown.status).toBe(404);
    } finally {
      fake.services = saved;
    }
  });
});

describe('the Heleket fake as a process', () => {
  it('starts from the environment alone and serves the services list', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'tools/provider-fakes/src/heleket/main.ts'], {
      env: {
        ...process.env,
        HELEKET_FAKE_PORT: '0',
        HELEKET_MERCHANT_ID: KEYS.merchantId,
        HELEKET_PAYMENT_KEY: KEYS.paymentKey,
        HELEKET_PAYOUT_KEY: KEYS.payoutKey,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const url = /listening on (\S+)/.exec(line)?.[1];
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${url}/v1/payment/services`, {
        method: 'POST',
        headers: { merchant: KEYS.merchantId, sign: fakeSign('', KEYS.paymentKey) },
      });
      expect(await res.json()).toMatchObject({
        state: 0,
        result: expect.arrayContaining([expect.objectContaining({ currency: 'BTC', network: 'btc' })]),
      });
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});
