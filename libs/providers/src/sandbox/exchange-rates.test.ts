import { coinUnitsFor, formatCoinUnits, parseExchangeRates } from './exchange-rates';

const RATES = parseExchangeRates('USDT=95.00,BTC=6500000.00,ETH=250000.00,TON=450.00');

describe('parseExchangeRates', () => {
  it('reads RUB per coin into integers scaled by 10^8', () => {
    expect(RATES).toEqual({ USDT: 9_500_000_000n, BTC: 650_000_000_000_000n, ETH: 25_000_000_000_000n, TON: 45_000_000_000n });
  });

  it('accepts up to eight decimal places and surrounding spaces', () => {
    expect(parseExchangeRates(' USDT=95.12345678 , BTC=1,ETH=2.5,TON=0.1').USDT).toBe(9_512_345_678n);
  });

  it.each([
    ['USDT=95,BTC=1,ETH=1', /missing rate for TON/],
    ['USDT=95,BTC=1,ETH=1,TON=1,DOGE=1', /unknown coin DOGE/],
    ['USDT=95,USDT=96,BTC=1,ETH=1,TON=1', /USDT is given twice/],
    ['USDT=9.123456789,BTC=1,ETH=1,TON=1', /at most 8 places/],
    ['USDT=1e2,BTC=1,ETH=1,TON=1', /decimal/],
    ['USDT=-1,BTC=1,ETH=1,TON=1', /decimal/],
    ['USDT=0.00,BTC=1,ETH=1,TON=1', /greater than 0/],
    ['USDT,BTC=1,ETH=1,TON=1', /not COIN=RATE/],
  ])('refuses %s', (text, message) => {
    expect(() => parseExchangeRates(text)).toThrow(message);
  });
});

describe('coinUnitsFor', () => {
  it('converts an exact amount without rounding', () => {
    // 950.00 RUB at 95 RUB per USDT is exactly 10 USDT.
    expect(formatCoinUnits(coinUnitsFor(95_000, 'USDT', RATES), 'USDT')).toBe('10.000000');
  });

  it('rounds up to the next smallest unit so the buyer never underpays', () => {
    // 100.00 / 95 = 1.052631578... USDT
    expect(formatCoinUnits(coinUnitsFor(10_000, 'USDT', RATES), 'USDT')).toBe('1.052632');
    // 100.00 / 6,500,000 = 0.0000153846... BTC
    expect(formatCoinUnits(coinUnitsFor(10_000, 'BTC', RATES), 'BTC')).toBe('0.00001539');
    // 100.00 / 450 = 0.2222... TON
    expect(formatCoinUnits(coinUnitsFor(10_000, 'TON', RATES), 'TON')).toBe('0.222222223');
  });

  it('keeps all eighteen decimals of ETH and the largest amount exact', () => {
    expect(formatCoinUnits(coinUnitsFor(10_000, 'ETH', RATES), 'ETH')).toBe('0.000400000000000000');
    expect(formatCoinUnits(coinUnitsFor(9_999_999_999, 'ETH', RATES), 'ETH')).toBe('399.999999960000000000');
  });

  it('never converts to less than the amount owed', () => {
    const rates = parseExchangeRates('USDT=97.31,BTC=6543210.98765432,ETH=251234.5,TON=449.99');
    for (const kopecks of [1, 7, 99, 12_345, 1_000_001, 9_999_999_999]) {
      for (const coin of ['USDT', 'BTC', 'ETH', 'TON'] as const) {
        const units = coinUnitsFor(kopecks, coin, rates);
        const decimals = BigInt({ USDT: 6, BTC: 8, ETH: 18, TON: 9 }[coin]);
        // units × rate covers the amount; one unit less would not.
        const covered = (u: bigint) => u * rates[coin] * 100n >= BigInt(kopecks) * 10n ** decimals * 100_000_000n;
        expect(covered(units)).toBe(true);
        expect(covered(units - 1n)).toBe(false);
      }
    }
  });
});
