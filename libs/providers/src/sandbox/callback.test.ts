import type { CallbackRequest, CallbackVerdict } from '../provider';
import { hexSignatureMatches, hmacSha256Hex, verifySandboxCallback } from './callback';

const SECRET = 'test-sandbox-secret-0123456789abcdef0123';
const body = Buffer.from('{"gateway_payment_id":"sbx_1","status":"paid"}');
const request = (rawBody: Buffer, headers: Record<string, string>): CallbackRequest => ({
  rawBody,
  header: (name) => headers[name.toLowerCase()],
  remoteAddress: '203.0.113.7',
});
const verify = (rawBody: Buffer, headers: Record<string, string>): CallbackVerdict => verifySandboxCallback(SECRET, request(rawBody, headers));
const signed = (raw: string): CallbackVerdict => verify(Buffer.from(raw), { 'x-provider-signature': hmacSha256Hex(SECRET, Buffer.from(raw)) });
const refusal = (verdict: CallbackVerdict) =>
  verdict.ok
    ? null
    : { reason: verdict.reason, status: verdict.reply.status, code: (JSON.parse(verdict.reply.body) as { error: { code: string } }).error.code };

describe('sandbox callback signature', () => {
  it('accepts the hex HMAC-SHA256 of the exact body, in either letter case', () => {
    const sig = hmacSha256Hex(SECRET, body);
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
    expect(verify(body, { 'x-provider-signature': sig }).ok).toBe(true);
    expect(verify(body, { 'x-provider-signature': sig.toUpperCase() }).ok).toBe(true);
  });

  it('refuses a missing header, a malformed one, another secret and a body changed by one byte: 401, as a signature', () => {
    const sig = hmacSha256Hex(SECRET, body);
    const changed = Buffer.from(body.toString().replace('paid', 'Paid'));
    for (const verdict of [
      verify(body, {}),
      verify(body, { 'x-provider-signature': 'abc' }),
      verify(body, { 'x-provider-signature': `${sig}00` }),
      verify(body, { 'x-provider-signature': 'z'.repeat(64) }),
      verify(body, { 'x-provider-signature': hmacSha256Hex(`${SECRET}x`, body) }),
      verify(changed, { 'x-provider-signature': sig }),
    ]) {
      expect(refusal(verdict)).toEqual({ reason: 'signature', status: 401, code: 'common.err.unauthorized' });
    }
  });

  it('compares without throwing for any header value', () => {
    for (const s of ['', ' ', 'sha256=' + 'a'.repeat(64), '\u00e9'.repeat(64)]) {
      expect(hexSignatureMatches(SECRET, body, s)).toBe(false);
    }
  });
});

describe('sandbox callback body', () => {
  it('reads a payment, ignoring provider fields it does not know, and answers received', () => {
    const verdict = signed('{"gateway_payment_id":"sbx_x","status":"paid","amount":"1.00"}');
    expect(verdict).toEqual({
      ok: true,
      event: {
        kind: 'payment',
        state: {
          provider: 'sandbox',
          gatewayPaymentId: 'sbx_x',
          orderId: null,
          status: 'paid',
          providerStatus: 'paid',
          arrivedKopecks: null,
          arrivedCryptoAmount: null,
          remainingCryptoAmount: null,
          refund: null,
        },
      },
      reply: { status: 200, contentType: 'application/json; charset=utf-8', body: '{"received":true}' },
    });
  });

  it('reads a refund by its gateway_refund_id, with the reason of a failure only', () => {
    const failed = signed('{"gateway_refund_id":"sbr_1","status":"failed","failure_reason":"Card closed"}');
    expect(failed.ok && failed.event).toEqual({
      kind: 'refund',
      state: {
        provider: 'sandbox',
        refundId: null,
        gatewayRefundId: 'sbr_1',
        status: 'failed',
        providerStatus: 'failed',
        failureReason: 'Card closed',
      },
    });
    const succeeded = signed('{"gateway_refund_id":"sbr_1","status":"succeeded"}');
    expect(succeeded.ok && succeeded.event).toMatchObject({ kind: 'refund', state: { status: 'succeeded', failureReason: null } });
  });

  it('refuses a signed body that is not JSON (or not UTF-8) or not its shape, as malformed with a 400', () => {
    expect(refusal(signed('{'))).toEqual({ reason: 'malformed', status: 400, code: 'common.err.invalid_json' });
    const notUtf8 = Buffer.from([0x7b, 0xff, 0x7d]);
    expect(refusal(verify(notUtf8, { 'x-provider-signature': hmacSha256Hex(SECRET, notUtf8) }))).toMatchObject({ code: 'common.err.invalid_json' });
    expect(refusal(signed('{"gateway_payment_id":"x","status":"refunded"}'))).toEqual({
      reason: 'malformed',
      status: 400,
      code: 'common.err.validation_failed',
    });
    expect(refusal(signed('{"status":"paid"}'))).toMatchObject({ code: 'common.err.validation_failed' });
    expect(refusal(signed('{"gateway_refund_id":"sbr_1","status":"paid"}'))).toMatchObject({ code: 'common.err.validation_failed' });
  });
});
