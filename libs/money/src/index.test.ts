import fc from 'fast-check';
import { computeAmounts, computeFee, FEE_PAYERS, formatKopecks, parseAmountText } from './index';

const amount = fc.integer({ min: 1, max: 9_999_999_999 });
const rate = fc.integer({ min: 0, max: 10_000 });
const payer = fc.constantFrom(...FEE_PAYERS);

describe('computeAmounts', () => {
  it('keeps payer_amount − merchant_credit = fee = platform_revenue for any amount, rate and fee payer', () => {
    fc.assert(
      fc.property(amount, rate, payer, (a, bps, p) => {
        const r = computeAmounts(a, bps, p);
        expect(r.payerAmount - r.merchantCredit).toBe(r.fee);
        expect(r.platformRevenue).toBe(r.fee);
      }),
    );
  });

  it('rounds the fee half up to the kopeck, exactly as decimal arithmetic would', () => {
    fc.assert(
      fc.property(amount, rate, (a, bps) => {
        const exact = BigInt(a) * BigInt(bps); // fee × 10000
        const floor = exact / 10000n;
        const remainder = exact % 10000n;
        expect(BigInt(computeFee(a, bps))).toBe(remainder >= 5000n ? floor + 1n : floor);
      }),
    );
  });

  it('charges the buyer and credits the merchant as each fee payer says', () => {
    fc.assert(
      fc.property(amount, rate, (a, bps) => {
        const fee = computeFee(a, bps);
        expect(computeAmounts(a, bps, 'merchant')).toMatchObject({ payerAmount: a, merchantCredit: a - fee });
        expect(computeAmounts(a, bps, 'client')).toMatchObject({ payerAmount: a + fee, merchantCredit: a });
        expect(computeAmounts(a, bps, 'split')).toMatchObject({
          payerAmount: a + Math.ceil(fee / 2),
          merchantCredit: a - Math.floor(fee / 2),
        });
      }),
    );
  });

  it('gives the odd kopeck of a split fee to the buyer side', () => {
    // 1.50 RUB at 1% = 1.5 kopecks, rounded half up to 2; split 1 + 1.
    expect(computeAmounts(150, 100, 'split')).toEqual({ fee: 2, payerAmount: 151, merchantCredit: 149, platformRevenue: 2 });
    // 3.00 RUB at 1% = 3 kopecks; buyer pays ceil(1.5) = 2, merchant gives floor(1.5) = 1.
    expect(computeAmounts(300, 100, 'split')).toEqual({ fee: 3, payerAmount: 302, merchantCredit: 299, platformRevenue: 3 });
  });
});

describe('parseAmountText', () => {
  it('reads every valid two-decimal amount back to the kopecks it was written from', () => {
    fc.assert(
      fc.property(amount, (k) => {
        expect(parseAmountText(formatKopecks(k))).toBe(k);
      }),
    );
  });

  it.each([
    ['10.1', 1010],
    ['10', 1000],
    ['0.01', 1],
    ['99999999.99', 9_999_999_999],
  ])('accepts %s as %d kopecks', (text, kopecks) => {
    expect(parseAmountText(text)).toBe(kopecks);
  });

  it.each(['0', '0.00', '-1', '10.005', '1e2', '0.1e1', '  5', '5 ', '01', '+5', '100000000', '1e400', '', '.5', '5.', 'NaN', '１'])(
    'rejects %j',
    (text) => {
      expect(parseAmountText(text)).toBeNull();
    },
  );
});

describe('formatKopecks', () => {
  it.each([
    [0, '0.00'],
    [5, '0.05'],
    [1010, '10.10'],
    [-250, '-2.50'],
  ])('formats %d as %s', (k, text) => {
    expect(formatKopecks(k)).toBe(text);
  });
});
