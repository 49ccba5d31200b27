import { createHash } from 'node:crypto';
import { providerCircuit } from '../breaker';
import type { CallbackRequest } from '../provider';
import { fieldsOfObject } from './invoice-state';
import { HELEKET_PAYOUT_STATUSES, payoutIdOf, payoutOrderId, payoutStateOf } from './payout-state';
import { heleketPayoutCallbackUrl, heleketPayouts } from './payouts';

const PAYOUT_KEY = 'test-payout-key-7a1e';
const PAYMENT_KEY = 'test-payment-key-0f3c';
const PAYOUT_ID = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';

// Payout webhooks with the documented fields (reference 1.13), written as Heleket writes them (slashes escaped), each
// signed apart from this code (Python: json.dumps(..., separators=(',', ':'), ensure_ascii=False) with '/' replaced
// by '\/', then md5(base64(text) + key)) with the payout key.
const PAID =
  '{"type":"payout","uuid":"2b852d86-3cf1-43fb-b1bb-36f0b7d12151","order_id":"a1b2c3d4e5f64a7b8c9d0e1f2a3b4c5d","amount":"1500.00",' +
  '"merchant_amount":"1512.50","commission":"12.50","is_final":true,"status":"paid",' +
  '"txid":"6f0d9c8374db57cac0d806251473de754f361c83a03cd805f74aa9da3193486b","currency":"RUB","network":"tron","payer_currency":"USDT",' +
  '"payer_amount":"16.666667"';
const PAID_SIGN = 'b857450949155c4f8b3b5bb2a3e337f3';
/** The same fields signed with the payment key: a payout webhook is never verified with it. */
const PAID_SIGN_PAYMENT_KEY = '1906fb1efd7f3a9d106b187d1230c011';
const FAIL =
  '{"type":"payout","uuid":"2b852d86-3cf1-43fb-b1bb-36f0b7d12151","order_id":"a1b2c3d4e5f64a7b8c9d0e1f2a3b4c5d","amount":"1500.00",' +
  '"merchant_amount":"0.00","commission":"0.00","is_final":true,"status":"fail","currency":"RUB","network":"tron","payer_currency":"USDT",' +
  '"payer_amount":"16.666667","fail_reason":"address error \\/ see https:\\/\\/heleket.com\\/aml"';
const FAIL_SIGN = 'f9a2ab7306e6f34e95e91bd70d067691';
/** FAIL's signature had Heleket not escaped the slashes: what a verifier that re-encodes with JSON.stringify alone would expect. */
const FAIL_SIGN_UNESCAPED = '4c14945efa83f9dcc806fe4f80d8ef98';

const withSign = (part: string, sign: string): string => `${part},"sign":"${sign}"}`;

function callback(body: string, remoteAddress = '31.133.220.8'): CallbackRequest {
  return { rawBody: Buffer.from(body, 'utf8'), header: () => undefined, remoteAddress };
}

function payouts(callbackIps: readonly string[] = []) {
  return heleketPayouts({
    apiUrl: 'http://127.0.0.1:9',
    merchantId: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
    payoutKey: PAYOUT_KEY,
    callbackIps,
    circuit: providerCircuit('heleket', { failures: 5, cooldownMs: 30_000 }),
  });
}

describe('Heleket payout order ids', () => {
  it('are the payout id without hyphens (32 characters), lowercase, and read back', () => {
    expect(payoutOrderId(PAYOUT_ID)).toBe('a1b2c3d4e5f64a7b8c9d0e1f2a3b4c5d');
    expect(payoutOrderId(PAYOUT_ID.toUpperCase())).toHaveLength(32);
    expect(payoutIdOf('A1B2C3D4E5F64A7B8C9D0E1F2A3B4C5D')).toBe(PAYOUT_ID);
  });

  it('refuses a payout id that is not a UUID, and reads no payout id from an order id not of ours', () => {
    expect(() => payoutOrderId('12345')).toThrow(RangeError);
    expect(payoutIdOf('12935')).toBeNull();
    expect(payoutIdOf(null)).toBeNull();
  });
});

describe('Heleket payout statuses', () => {
  it.each([
    ['process', 'processing', null],
    ['check', 'processing', null],
    ['paid', 'paid', null],
    ['fail', 'failed', 'fail'],
    ['cancel', 'failed', 'cancel'],
    ['system_fail', 'failed', 'system_fail'],
  ] as const)('maps %s to %s', (word, status, reason) => {
    const state = payoutStateOf(fieldsOfObject({ uuid: 'u-1', order_id: 'a1b2c3d4e5f64a7b8c9d0e1f2a3b4c5d', status: word }));
    expect(state).toMatchObject({ status, providerStatus: word, failureReason: reason, payoutId: PAYOUT_ID, providerPayoutId: 'u-1' });
  });

  it('covers every documented word, and reads an undocumented one as still processing (never given back while Heleket may pay it)', () => {
    expect([...HELEKET_PAYOUT_STATUSES].sort()).toEqual(['cancel', 'check', 'fail', 'paid', 'process', 'system_fail']);
    expect(payoutStateOf(fieldsOfObject({ uuid: 'u-1', status: 'in_review' }))).toMatchObject({ status: 'processing', providerStatus: 'in_review' });
  });

  it("takes a failure's reason from fail_reason when Heleket gives one", () => {
    expect(payoutStateOf(fieldsOfObject({ uuid: 'u', status: 'fail', fail_reason: 'aml' }))?.failureReason).toBe('aml');
  });

  it('names no payout without a uuid or a status', () => {
    expect(payoutStateOf(fieldsOfObject({ status: 'paid' }))).toBeNull();
    expect(payoutStateOf(fieldsOfObject({ uuid: 'u' }))).toBeNull();
  });
});

describe('Heleket payout webhooks', () => {
  it('verifies a paid webhook with the payout key and reads it', () => {
    const verdict = payouts().verifyPayoutCallback(callback(withSign(PAID, PAID_SIGN)));
    expect(verdict).toEqual({
      ok: true,
      reply: { status: 200, contentType: 'application/json', body: '{"received":true}' },
      state: {
        payoutId: PAYOUT_ID,
        orderId: 'a1b2c3d4e5f64a7b8c9d0e1f2a3b4c5d',
        providerPayoutId: '2b852d86-3cf1-43fb-b1bb-36f0b7d12151',
        status: 'paid',
        providerStatus: 'paid',
        failureReason: null,
        txid: '6f0d9c8374db57cac0d806251473de754f361c83a03cd805f74aa9da3193486b',
        payerAmount: '16.666667',
        payerCurrency: 'USDT',
        address: null,
      },
    });
  });

  it('verifies a failed webhook whose reason has slashes, signed over them escaped, and reads the reason', () => {
    const verdict = payouts().verifyPayoutCallback(callback(withSign(FAIL, FAIL_SIGN)));
    expect(verdict).toMatchObject({
      ok: true,
      state: { status: 'failed', failureReason: 'address error / see https://heleket.com/aml', txid: null },
    });
    expect(payouts().verifyPayoutCallback(callback(withSign(FAIL, FAIL_SIGN_UNESCAPED)))).toMatchObject({ ok: false, reason: 'signature' });
  });

  it('refuses a webhook signed with the payment key, a forged field, a missing sign, and one from outside the allowlist (401)', () => {
    const client = payouts(['31.133.220.8']);
    const forged = withSign(PAID.replace('"amount":"1500.00"', '"amount":"15000.00"'), PAID_SIGN);
    for (const body of [withSign(PAID, PAID_SIGN_PAYMENT_KEY), forged, `${PAID}}`]) {
      const verdict = client.verifyPayoutCallback(callback(body));
      expect(verdict).toMatchObject({ ok: false, reason: 'signature', reply: { status: 401 } });
    }
    expect(client.verifyPayoutCallback(callback(withSign(PAID, PAID_SIGN), '10.0.0.1'))).toMatchObject({ ok: false, reason: 'address' });
    expect(client.verifyPayoutCallback(callback(withSign(PAID, PAID_SIGN), '::ffff:31.133.220.8'))).toMatchObject({ ok: true });
  });

  it('answers 400 to a verified webhook that is not a payout, or of an undocumented status, and to a body that is not JSON', () => {
    const sign = (text: string) =>
      createHash('md5')
        .update(Buffer.from(text).toString('base64') + PAYOUT_KEY)
        .digest('hex');
    const payment = '{"type":"payment","uuid":"u","order_id":"o","status":"paid"}';
    const odd = '{"type":"payout","uuid":"u","order_id":"o","status":"in_review"}';
    for (const text of [payment, odd]) {
      const verdict = payouts().verifyPayoutCallback(callback(`${text.slice(0, -1)},"sign":"${sign(text)}"}`));
      expect(verdict).toMatchObject({ ok: false, reason: 'malformed', reply: { status: 400 } });
    }
    expect(payouts().verifyPayoutCallback(callback('not json'))).toMatchObject({ ok: false, reason: 'malformed', reply: { status: 400 } });
  });

  it("is sent to the payouts' own callback path", () => {
    expect(heleketPayoutCallbackUrl('https://pay.example.com/')).toBe('https://pay.example.com/callbacks/v1/heleket-payouts');
    expect(PAYMENT_KEY).not.toBe(PAYOUT_KEY);
  });
});

describe('a payout create that cannot be sent', () => {
  const request = {
    payoutId: PAYOUT_ID,
    amountKopecks: 150_000,
    network: 'USDT-TRC20' as const,
    address: 'TXguLRFtrAFrEDA17WuPfrxB84jVzJcNNV',
    callbackUrl: 'https://pay.example.com/callbacks/v1/heleket-payouts',
  };

  it.each([
    ['a payout id that is not a UUID', { payoutId: '12345' }],
    ['an amount of no kopecks', { amountKopecks: 0 }],
    ['an amount that is not whole kopecks', { amountKopecks: 10.5 }],
    ['a callback URL longer than Heleket takes', { callbackUrl: `https://pay.example.com/${'x'.repeat(250)}` }],
    ['a callback URL that is not http(s)', { callbackUrl: 'ftp://pay.example.com/cb' }],
    ['an empty address', { address: ' ' }],
  ])('throws RangeError for %s, before any request', async (_what, change) => {
    await expect(payouts().createPayout({ ...request, ...change }, { timeoutMs: 1000 })).rejects.toBeInstanceOf(RangeError);
  });

  it("answers an unknown outcome when Heleket cannot be reached (the create's fate unknown to the caller)", async () => {
    await expect(payouts().createPayout(request, { timeoutMs: 1000 })).resolves.toEqual({ outcome: 'unknown', why: 'network' });
  });

  it('will not run under the circuit of another provider', () => {
    const circuit = providerCircuit('raiffeisen_sbp', { failures: 5, cooldownMs: 1000 });
    expect(() => heleketPayouts({ apiUrl: 'http://x', merchantId: 'm', payoutKey: 'k', callbackIps: [], circuit })).toThrow('raiffeisen_sbp');
  });
});
