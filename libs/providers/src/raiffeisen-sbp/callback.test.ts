import { createHmac } from 'node:crypto';
import { judgeArrivedAmount, type CallbackRequest, type PaymentState } from '../provider';
import { senderAllowlist } from '../sender-allowlist';
import { verifyRaiffeisenCallback } from './callback';
import { raiffeisenSbpProvider } from './raiffeisen-sbp.provider';

/**
 * The signature vector Raiffeisen publishes with its own SDK (Raiffeisen-DGTL/sbp-sdk-java, SbpUtilsTest): a
 * notification body, the test secret key it was signed with, and the signature the bank sent.
 */
const SDK_SECRET_KEY =
  'eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJNQTAwMDAwMDA1NTIiLCJqdGkiOiIwZTRhODI2ZC0zMTk3LTQ5YWUtYjRlYS0zZDllOGRkODIyOGEifQ.Q-AVaDBzvfkz6I8ZCVgvGIWpWTUgotRDmTcs4ysR0Qc';
const SDK_BODY =
  '{"transactionId":17998,"qrId":"AS1000408BSPMRDI8IHBGO4DFQAISU9O","sbpMerchantId":"MA0000000552","merchantId":123,"amount":101.01,"currency":"RUB","transactionDate":"2020-07-24T17:20:00.999232+03:00","paymentStatus":"SUCCESS","additionalInfo":null,"order":"dfe0ff08-4796-46bb-a9fb-93fcd99ce748","createDate":"2020-07-24T17:19:58+03:00"}';
const SDK_SIGNATURE = '1eca6a084ff8a5b4f5740e0eeab2a72d8ff981bce5b5dea75a53bf44944a8c8d';

const BANK_ADDRESS = '193.28.44.23';

function callback(body: string, signature: string | undefined, remoteAddress = BANK_ADDRESS): CallbackRequest {
  return {
    rawBody: Buffer.from(body, 'utf8'),
    header: (name) => (name.toLowerCase() === 'x-api-signature-sha256' ? signature : undefined),
    remoteAddress,
  };
}

const keys = (over: Partial<{ secretKey: string; sbpMerchantId: string; ips: string[] }> = {}) => ({
  secretKey: over.secretKey ?? SDK_SECRET_KEY,
  sbpMerchantId: over.sbpMerchantId ?? 'MA0000000552',
  senderAllowed: senderAllowlist(over.ips ?? [BANK_ADDRESS, '31.133.220.8']),
});

/** Signs by the documented rule: hex HMAC-SHA256 of `amount|sbpMerchantId|order|paymentStatus|transactionDate`. */
const sign = (secret: string, parts: readonly string[]): string => createHmac('sha256', secret).update(parts.join('|')).digest('hex');

const notification = (amountText: string, status = 'SUCCESS'): string =>
  `{"transactionId":41,"qrId":"AS100032PQ7739G58NCQ457RA2OG82JP","sbpMerchantId":"MA0000000279","merchantId":1780672001,"amount":${amountText},"currency":"RUB","transactionDate":"2020-01-15T16:01:49.043924+03:00","paymentStatus":"${status}","additionalInfo":"Some info","order":"testOrder","createDate":"2020-01-15T13:00:40+03:00"}`;
const SECRET = 'test-secret-key';
const docKeys = () => keys({ secretKey: SECRET, sbpMerchantId: 'MA0000000279' });
const docSignature = (amountText: string, status = 'SUCCESS') =>
  sign(SECRET, [amountText, 'MA0000000279', 'testOrder', status, '2020-01-15T16:01:49.043924+03:00']);

describe('Raiffeisen callback verification', () => {
  it("accepts the bank's own published notification and signature, and reads the payment from it", () => {
    const verdict = verifyRaiffeisenCallback(callback(SDK_BODY, SDK_SIGNATURE), keys());
    expect(verdict).toEqual({
      ok: true,
      event: {
        kind: 'payment',
        state: {
          provider: 'raiffeisen_sbp',
          gatewayPaymentId: 'AS1000408BSPMRDI8IHBGO4DFQAISU9O',
          orderId: 'dfe0ff08-4796-46bb-a9fb-93fcd99ce748',
          status: 'paid',
          providerStatus: 'SUCCESS',
          arrivedKopecks: 10101,
          arrivedCryptoAmount: null,
          remainingCryptoAmount: null,
          refund: null,
        },
      },
      reply: { status: 200, contentType: 'application/json', body: '{"received":true}' },
    });
  });

  it('accepts the signature in upper-case hex', () => {
    expect(verifyRaiffeisenCallback(callback(SDK_BODY, SDK_SIGNATURE.toUpperCase()), keys()).ok).toBe(true);
  });

  it('signs the amount as its text appears in the body: 100.50 is signed as 100.50, not 100.5', () => {
    const body = notification('100.50');
    const verdict = verifyRaiffeisenCallback(callback(body, docSignature('100.50')), docKeys());
    expect(verdict.ok && verdict.event.kind === 'payment' && verdict.event.state.arrivedKopecks).toBe(10050);
    expect(verifyRaiffeisenCallback(callback(body, docSignature('100.5')), docKeys())).toMatchObject({ ok: false, reason: 'signature' });
  });

  it('reads an integer amount as written: 10 is signed as 10', () => {
    const verdict = verifyRaiffeisenCallback(callback(notification('10'), docSignature('10')), docKeys());
    expect(verdict.ok && verdict.event.kind === 'payment' && verdict.event.state.arrivedKopecks).toBe(1000);
  });

  it('refuses a body changed after signing, with 401 in the error shape', () => {
    const tampered = SDK_BODY.replace('"amount":101.01', '"amount":1010.10');
    const verdict = verifyRaiffeisenCallback(callback(tampered, SDK_SIGNATURE), keys());
    expect(verdict).toEqual({
      ok: false,
      reason: 'signature',
      reply: {
        status: 401,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'common.err.unauthorized', message: 'Missing or invalid provider signature' } }),
      },
    });
  });

  it.each([
    ['missing', undefined],
    ['not hex', 'z'.repeat(64)],
    ['too short', SDK_SIGNATURE.slice(2)],
    [
      'signed with another key',
      sign('another-key', ['101.01', 'MA0000000552', 'dfe0ff08-4796-46bb-a9fb-93fcd99ce748', 'SUCCESS', '2020-07-24T17:20:00.999232+03:00']),
    ],
  ])('refuses a signature that is %s', (_what, signature) => {
    expect(verifyRaiffeisenCallback(callback(SDK_BODY, signature), keys())).toMatchObject({ ok: false, reason: 'signature' });
  });

  it('refuses a validly signed callback from an address outside the allowlist, and takes IPv4 behind IPv6 and CIDRs', () => {
    expect(verifyRaiffeisenCallback(callback(SDK_BODY, SDK_SIGNATURE, '203.0.113.9'), keys())).toMatchObject({ ok: false, reason: 'address' });
    expect(verifyRaiffeisenCallback(callback(SDK_BODY, SDK_SIGNATURE, `::ffff:${BANK_ADDRESS}`), keys()).ok).toBe(true);
    expect(verifyRaiffeisenCallback(callback(SDK_BODY, SDK_SIGNATURE, '10.1.2.3'), keys({ ips: ['10.0.0.0/8'] })).ok).toBe(true);
    expect(verifyRaiffeisenCallback(callback(SDK_BODY, SDK_SIGNATURE, '2001:db8::7'), keys({ ips: ['2001:db8::/32'] })).ok).toBe(true);
    expect(verifyRaiffeisenCallback(callback(SDK_BODY, SDK_SIGNATURE, 'not-an-address'), keys())).toMatchObject({ ok: false, reason: 'address' });
  });

  it('allows any sender when no address is configured', () => {
    expect(verifyRaiffeisenCallback(callback(SDK_BODY, SDK_SIGNATURE, '203.0.113.9'), keys({ ips: [] })).ok).toBe(true);
  });

  it('refuses a bad allowlist entry at construction', () => {
    expect(() => senderAllowlist(['193.28.44.23/33'])).toThrow('193.28.44.23/33');
    expect(() => senderAllowlist(['bank.example'])).toThrow('bank.example');
  });

  it.each([
    ['not JSON', 'amount=1'],
    ['an array', '[1]'],
    ['a duplicate member', SDK_BODY.replace('"currency":"RUB"', '"amount":1,"currency":"RUB"')],
    ['no amount', SDK_BODY.replace('"amount":101.01,', '')],
    ['an amount written as a string', SDK_BODY.replace('"amount":101.01', '"amount":"101.01"')],
  ])('refuses a body that is %s as malformed', (_what, body) => {
    expect(verifyRaiffeisenCallback(callback(body, SDK_SIGNATURE), keys())).toMatchObject({ ok: false, reason: 'malformed', reply: { status: 401 } });
  });

  it('refuses a signed notification for another merchant, or with an undocumented status or amount', () => {
    expect(verifyRaiffeisenCallback(callback(SDK_BODY, SDK_SIGNATURE), keys({ sbpMerchantId: 'MA0000000999' }))).toMatchObject({
      reason: 'malformed',
    });
    expect(verifyRaiffeisenCallback(callback(notification('10', 'REVERSED'), docSignature('10', 'REVERSED')), docKeys())).toMatchObject({
      reason: 'malformed',
    });
    expect(verifyRaiffeisenCallback(callback(notification('1e2'), docSignature('1e2')), docKeys())).toMatchObject({ reason: 'malformed' });
  });

  it('reads DECLINED as a declined attempt (it fails; the link stays pending)', () => {
    const verdict = verifyRaiffeisenCallback(callback(notification('10', 'DECLINED'), docSignature('10', 'DECLINED')), docKeys());
    expect(verdict.ok && verdict.event.kind === 'payment' && verdict.event.state).toMatchObject({
      status: 'declined',
      providerStatus: 'DECLINED',
      arrivedKopecks: null,
    });
  });

  it('is what the provider answers through verifyCallback', () => {
    const provider = raiffeisenSbpProvider({
      apiUrl: 'http://127.0.0.1:9/api',
      sbpMerchantId: 'MA0000000552',
      secretKey: SDK_SECRET_KEY,
      callbackIps: [BANK_ADDRESS],
    });
    expect(provider.verifyCallback(callback(SDK_BODY, SDK_SIGNATURE)).ok).toBe(true);
    expect(provider.verifyCallback(callback(SDK_BODY, SDK_SIGNATURE, '127.0.0.1')).ok).toBe(false);
  });
});

describe('a SUCCESS judged against the attempt', () => {
  const paid = (arrivedKopecks: number): PaymentState => ({
    provider: 'raiffeisen_sbp',
    gatewayPaymentId: 'q',
    orderId: 'o-1',
    status: 'paid',
    providerStatus: 'SUCCESS',
    arrivedKopecks,
    arrivedCryptoAmount: null,
    remainingCryptoAmount: null,
    refund: null,
  });

  it('is paid for exactly what was asked, underpaid for less, paid_over for more', () => {
    expect(judgeArrivedAmount(paid(10050), 10050).status).toBe('paid');
    expect(judgeArrivedAmount(paid(10049), 10050)).toMatchObject({ status: 'underpaid', arrivedKopecks: 10049 });
    expect(judgeArrivedAmount(paid(10051), 10050)).toMatchObject({ status: 'paid_over', arrivedKopecks: 10051 });
  });

  it('leaves a state that is not paid as it is', () => {
    const declined: PaymentState = { ...paid(0), status: 'declined', arrivedKopecks: null };
    expect(judgeArrivedAmount(declined, 10050)).toBe(declined);
  });
});
