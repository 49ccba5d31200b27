import fc from 'fast-check';
import type { CallbackRequest } from '../provider';
import { callbackAllowlist, verifyHeleketCallback } from './callback';
import { heleketSign } from './signature';

const PAYMENT_KEY = 'test-payment-key-0f3c';

// The documented webhook fields (the provider's published API (docs/providers.md)) with a slash and non-ASCII in additional_data, written
// as Heleket writes it (JSON_UNESCAPED_UNICODE: slashes escaped, Cyrillic as is); the signature computed apart (Python).
const SIGNED_PART =
  '{"type":"payment","uuid":"62f88b36-a9d5-4fa6-aa26-e040c3dbf26d","order_id":"8d5b6c1e-3f4a-4b2c-9d7e-1a2b3c4d5e6f-1",' +
  '"amount":"1259.19","payment_amount":"14.000000","payment_amount_usd":"14.00","merchant_amount":"13.720000","commission":"0.280000",' +
  '"is_final":true,"status":"paid","from":"THgEWubVc8tPKXLJ4VZ5zbiiAK7AgqSeGH","wallet_address_uuid":null,"network":"tron","currency":"RUB",' +
  '"payer_currency":"USDT","additional_data":"Заказ №5 \\/ https:\\/\\/shop.example.com\\/o\\/42",' +
  '"convert":{"to_currency":"USDT","commission":null,"rate":"0.01111800","amount":"14.00000000"},' +
  '"txid":"6f0d9c8374db57cac0d806251473de754f361c83a03cd805f74aa9da3193486b"';
const SIGN = '34869abe3286a33774418d165e69ae87';
const EXAMPLE = `${SIGNED_PART},"sign":"${SIGN}"}`;

const anyAddress = callbackAllowlist([]);

function callback(body: string | Buffer, remoteAddress = '31.133.220.8'): CallbackRequest {
  return { rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'), header: () => undefined, remoteAddress };
}

/** A body signed by the rule, `sign` placed where Heleket puts it (last). */
function signed(fields: Record<string, unknown>): string {
  const text = JSON.stringify(fields)
    .replace(/\//g, '\\/')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return `${text.slice(0, -1)},"sign":"${heleketSign(text, PAYMENT_KEY)}"}`;
}

describe('Heleket callback verification', () => {
  it('verifies the documented example (escaped slashes, non-ASCII as is) and reads the payment', () => {
    const verdict = verifyHeleketCallback(callback(EXAMPLE), PAYMENT_KEY, anyAddress);
    expect(verdict.ok).toBe(true);
    expect(verdict.reply).toEqual({ status: 200, contentType: 'application/json', body: '{"received":true}' });
    if (!verdict.ok || verdict.event.kind !== 'payment') throw new Error('expected a payment event');
    expect(verdict.event.state).toMatchObject({
      provider: 'heleket',
      gatewayPaymentId: '62f88b36-a9d5-4fa6-aa26-e040c3dbf26d',
      orderId: '8d5b6c1e-3f4a-4b2c-9d7e-1a2b3c4d5e6f-1',
      status: 'paid',
      providerStatus: 'paid',
      arrivedCryptoAmount: '14.000000',
      // The webhook carries no payer_amount: the value comes from the attempt's ask (arrivedKopecksAtAskedRate).
      arrivedKopecks: null,
      refund: null,
    });
  });

  it('verifies the same callback sent with \\u escapes, since PHP compares what it decoded', () => {
    const escaped = EXAMPLE.replace('Заказ №5', '\\u0417\\u0430\\u043a\\u0430\\u0437 \\u21165');
    expect(verifyHeleketCallback(callback(escaped), PAYMENT_KEY, anyAddress).ok).toBe(true);
  });

  it('keeps integer-like keys where they stand, as PHP does (JSON.parse would move them first)', () => {
    const text = '{"type":"payment","uuid":"u-1","status":"check","10":"x","2":"y"}';
    const body = `${text.slice(0, -1)},"sign":"${heleketSign(text, PAYMENT_KEY)}"}`;
    expect(verifyHeleketCallback(callback(body), PAYMENT_KEY, anyAddress).ok).toBe(true);
  });

  it('refuses with 401 and the platform error shape a body changed after signing', () => {
    const verdict = verifyHeleketCallback(callback(EXAMPLE.replace('"status":"paid"', '"status":"paid_over"')), PAYMENT_KEY, anyAddress);
    expect(verdict).toMatchObject({ ok: false, reason: 'signature' });
    expect(verdict.reply.status).toBe(401);
    expect(JSON.parse(verdict.reply.body)).toEqual({ error: { code: 'common.err.unauthorized', message: 'Missing or invalid provider signature' } });
  });

  it('refuses a callback signed with another key, or with no sign at all', () => {
    expect(verifyHeleketCallback(callback(EXAMPLE), 'another-key', anyAddress)).toMatchObject({ ok: false, reason: 'signature' });
    expect(verifyHeleketCallback(callback(`${SIGNED_PART}}`), PAYMENT_KEY, anyAddress)).toMatchObject({ ok: false, reason: 'signature' });
    expect(verifyHeleketCallback(callback(EXAMPLE.replace(`"sign":"${SIGN}"`, '"sign":12')), PAYMENT_KEY, anyAddress)).toMatchObject({
      ok: false,
      reason: 'signature',
    });
  });

  it('refuses a signature computed over unescaped slashes (not what Heleket signs)', () => {
    const text = '{"type":"payment","uuid":"u-1","status":"paid","additional_data":"a/b"}';
    const body = `${text.slice(0, -1)},"sign":"${heleketSign(text, PAYMENT_KEY)}"}`;
    expect(verifyHeleketCallback(callback(body), PAYMENT_KEY, anyAddress)).toMatchObject({ ok: false, reason: 'signature' });
  });

  it('answers a body that is not JSON, not UTF-8 or not an object as malformed, changing nothing', () => {
    for (const body of ['not json', Buffer.from([0x7b, 0xff, 0x7d]), '[1,2]', '{"a":1}{']) {
      const verdict = verifyHeleketCallback(callback(body), PAYMENT_KEY, anyAddress);
      expect(verdict).toMatchObject({ ok: false, reason: 'malformed' });
      expect(verdict.reply.status).toBe(400);
    }
  });

  it('refuses a sender outside the allowlist before reading the body, and takes an IPv4-mapped address', () => {
    const allowed = callbackAllowlist(['193.28.44.23', '31.133.220.0/24', '2001:db8::/32']);
    expect(verifyHeleketCallback(callback(EXAMPLE, '10.0.0.1'), PAYMENT_KEY, allowed)).toMatchObject({
      ok: false,
      reason: 'address',
      reply: { status: 401 },
    });
    expect(verifyHeleketCallback(callback(EXAMPLE, '::ffff:31.133.220.8'), PAYMENT_KEY, allowed).ok).toBe(true);
    expect(verifyHeleketCallback(callback(EXAMPLE, '2001:db8::5'), PAYMENT_KEY, allowed).ok).toBe(true);
    expect(verifyHeleketCallback(callback(EXAMPLE, 'garbage'), PAYMENT_KEY, allowed).ok).toBe(false);
  });

  it('stops at start on an allowlist entry that is neither an address nor a CIDR', () => {
    expect(() => callbackAllowlist(['31.133.220.8/33'])).toThrow(/HELEKET_CALLBACK_IPS/);
    expect(() => callbackAllowlist(['heleket.com'])).toThrow(/HELEKET_CALLBACK_IPS/);
  });

  it('reads refund statuses as a refund of the payment', () => {
    const verdict = verifyHeleketCallback(callback(signed({ type: 'payment', uuid: 'u-9', status: 'refund_paid' })), PAYMENT_KEY, anyAddress);
    expect(verdict).toMatchObject({
      ok: true,
      event: {
        kind: 'refund',
        state: { provider: 'heleket', refundId: null, gatewayRefundId: 'u-9', status: 'succeeded', providerStatus: 'refund_paid' },
      },
    });
  });

  it('refuses, with 400 for a retry, a verified callback whose status or type it does not know', () => {
    for (const fields of [
      { type: 'payment', uuid: 'u-1', status: 'teleported' },
      { type: 'wallet', uuid: 'u-1', status: 'paid' },
    ]) {
      const verdict = verifyHeleketCallback(callback(signed(fields)), PAYMENT_KEY, anyAddress);
      expect(verdict).toMatchObject({ ok: false, reason: 'malformed', reply: { status: 400 } });
    }
  });

  it('verifies any body signed as Heleket encodes it, whatever its strings, numbers and key order (property)', () => {
    const key = fc.string({ unit: 'grapheme', maxLength: 6 }).filter((k) => !/^(0|[1-9]\d*)$/.test(k) && k !== 'sign');
    const leaf = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.constantFrom('https://a.example/b/c', 'Заказ №5 / тест', '\u2028', 'a\\/b'),
      fc.integer(),
      fc.double({ min: 1e-4, max: 1e15, noNaN: true }),
      fc.boolean(),
      fc.constant(null),
    );
    fc.assert(
      fc.property(fc.dictionary(key, leaf, { maxKeys: 8 }), (extra) => {
        const verdict = verifyHeleketCallback(callback(signed({ ...extra, type: 'payment', uuid: 'u-1', status: 'paid' })), PAYMENT_KEY, anyAddress);
        expect(verdict.ok).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws, whatever the bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const verdict = verifyHeleketCallback(callback(Buffer.from(bytes)), PAYMENT_KEY, anyAddress);
        expect(verdict.ok).toBe(false);
      }),
    );
  });
});
