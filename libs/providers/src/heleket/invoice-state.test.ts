import fc from 'fast-check';
import { arrivedKopecksAtAskedRate, remainingCrypto } from '../crypto-value';
import { fieldsOfObject, HELEKET_STATUSES, paymentStateOf } from './invoice-state';

const invoice = (fields: Record<string, unknown>) =>
  paymentStateOf(fieldsOfObject({ uuid: 'u-1', order_id: 'link-1', amount: '1000.00', payer_amount: '10.000000', payment_amount: null, ...fields }));

describe('Heleket statuses', () => {
  const expected: Record<string, { status: string; refund: string | null }> = {
    check: { status: 'unpaid', refund: null },
    process: { status: 'confirming', refund: null },
    confirm_check: { status: 'confirming', refund: null },
    wrong_amount_waiting: { status: 'partially_paid', refund: null },
    paid: { status: 'paid', refund: null },
    paid_over: { status: 'paid_over', refund: null },
    wrong_amount: { status: 'underpaid', refund: null },
    cancel: { status: 'ended_unpaid', refund: null },
    fail: { status: 'failed', refund: null },
    system_fail: { status: 'failed', refund: null },
    locked: { status: 'locked', refund: null },
    refund_process: { status: 'paid', refund: 'pending' },
    refund_paid: { status: 'paid', refund: 'succeeded' },
    refund_fail: { status: 'paid', refund: 'failed' },
  };

  it('knows every documented status', () => {
    expect([...HELEKET_STATUSES].sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))('maps %s', (word, { status, refund }) => {
    const state = invoice({ payment_status: word, payment_amount: '10.000000' });
    expect(state?.status).toBe(status);
    expect(state?.providerStatus).toBe(word);
    expect(state?.refund?.status ?? null).toBe(refund);
    if (refund !== null) expect(state?.refund).toMatchObject({ provider: 'heleket', gatewayRefundId: 'u-1', refundId: null });
  });

  it('reads an unknown status as no state, for the caller to refuse', () => {
    expect(invoice({ payment_status: 'teleported' })).toBeNull();
    expect(paymentStateOf(fieldsOfObject({ status: 'paid' }))).toBeNull();
  });

  it('tells what a refunded payment was from what arrived against what was asked', () => {
    expect(invoice({ payment_status: 'refund_paid', payment_amount: '12.5' })?.status).toBe('paid_over');
    expect(invoice({ payment_status: 'refund_paid', payment_amount: '4' })?.status).toBe('underpaid');
  });

  it('values what arrived at the invoice rate, rounded down, and says what remains for a partial payment', () => {
    const partial = invoice({ payment_status: 'wrong_amount_waiting', amount: '1259.19', payer_amount: '14.000000', payment_amount: '3.333333' });
    // 1259.19 x 3.333333 / 14 = 299.8069...
    expect(partial).toMatchObject({ arrivedKopecks: 29980, arrivedCryptoAmount: '3.333333', remainingCryptoAmount: '10.666667' });
    const over = invoice({ payment_status: 'paid_over', amount: '1000.00', payer_amount: '10.000000', payment_amount: '10.5' });
    expect(over).toMatchObject({ arrivedKopecks: 105000, remainingCryptoAmount: null });
    expect(invoice({ payment_status: 'check', payment_amount: '0.00' })).toMatchObject({ arrivedKopecks: null, arrivedCryptoAmount: null });
  });
});

describe('the RUB value of a crypto arrival', () => {
  it('is the invoice amount itself when exactly the ask arrived', () => {
    expect(arrivedKopecksAtAskedRate({ payerAmountKopecks: 125919, payerCryptoAmount: '14.000000' }, '14')).toBe(125919);
  });

  it('rounds down, and never exceeds the exact value by a kopeck (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 999_999_999_999 }),
        fc.bigInt({ min: 1n, max: 10n ** 20n }),
        fc.bigInt({ min: 0n, max: 10n ** 20n }),
        fc.integer({ min: 0, max: 18 }),
        fc.integer({ min: 0, max: 18 }),
        (kopecks, askedUnits, arrivedUnits, askedScale, arrivedScale) => {
          const text = (units: bigint, scale: number) => {
            const s = units.toString().padStart(scale + 1, '0');
            return scale === 0 ? s : `${s.slice(0, -scale)}.${s.slice(-scale)}`;
          };
          const value = arrivedKopecksAtAskedRate(
            { payerAmountKopecks: kopecks, payerCryptoAmount: text(askedUnits, askedScale) },
            text(arrivedUnits, arrivedScale),
          );
          if (value === null) return;
          // value <= kopecks x arrived / asked < value + 1, in integers: cross-multiplied over 10^(scales).
          const exactNum = BigInt(kopecks) * arrivedUnits * 10n ** BigInt(askedScale);
          const exactDen = askedUnits * 10n ** BigInt(arrivedScale);
          expect(BigInt(value) * exactDen <= exactNum).toBe(true);
          expect((BigInt(value) + 1n) * exactDen > exactNum).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('is null for an ask of zero or an amount that is not a decimal', () => {
    expect(arrivedKopecksAtAskedRate({ payerAmountKopecks: 100, payerCryptoAmount: '0.000' }, '1')).toBeNull();
    expect(arrivedKopecksAtAskedRate({ payerAmountKopecks: 100, payerCryptoAmount: '1e3' }, '1')).toBeNull();
  });

  it('says what remains to send, or null when nothing does', () => {
    expect(remainingCrypto({ payerAmountKopecks: 100, payerCryptoAmount: '0.00120000' }, '0.0004')).toBe('0.00080000');
    expect(remainingCrypto({ payerAmountKopecks: 100, payerCryptoAmount: '1.5' }, '1.50')).toBeNull();
    expect(remainingCrypto({ payerAmountKopecks: 100, payerCryptoAmount: '1.5' }, '2')).toBeNull();
  });
});
