/** Coins the checkout prices in, with the number of decimals of their smallest unit. */
const COIN_DECIMALS = { USDT: 6, BTC: 8, ETH: 18, TON: 9 } as const;
export type Coin = keyof typeof COIN_DECIMALS;
const COINS = Object.keys(COIN_DECIMALS) as Coin[];

/** Decimals a configured rate may carry; rates are held as integers of 10^-RATE_DECIMALS RUB. */
const RATE_DECIMALS = 8;
const RATE_SCALE = 10n ** BigInt(RATE_DECIMALS);
const RATE_TEXT = /^(0|[1-9][0-9]{0,11})(?:\.([0-9]{1,8}))?$/;

/** RUB per whole coin, scaled by 10^8, so no float ever holds a rate. */
export type ExchangeRates = Readonly<Record<Coin, bigint>>;

/**
 * Parses `USDT=95.00,BTC=6500000.00,...` (RUB per coin). Every coin must appear exactly once with a
 * positive decimal of at most 8 places; anything else throws with a message naming the problem.
 */
export function parseExchangeRates(text: string): ExchangeRates {
  const rates: Partial<Record<Coin, bigint>> = {};
  for (const part of text.split(',')) {
    const [coin, value, ...rest] = part.trim().split('=');
    if (coin === undefined || value === undefined || rest.length > 0) throw new Error(`"${part.trim()}" is not COIN=RATE`);
    if (!(coin in COIN_DECIMALS)) throw new Error(`unknown coin ${coin}; expected ${COINS.join(', ')}`);
    if (rates[coin as Coin] !== undefined) throw new Error(`${coin} is given twice`);
    const m = RATE_TEXT.exec(value);
    if (!m) throw new Error(`rate of ${coin} must be a decimal with at most 8 places, got "${value}"`);
    const scaled = BigInt(m[1] ?? '0') * RATE_SCALE + BigInt((m[2] ?? '').padEnd(RATE_DECIMALS, '0'));
    if (scaled <= 0n) throw new Error(`rate of ${coin} must be greater than 0`);
    rates[coin as Coin] = scaled;
  }
  const missing = COINS.filter((c) => rates[c] === undefined);
  if (missing.length > 0) throw new Error(`missing rate for ${missing.join(', ')}`);
  return rates as ExchangeRates;
}

/**
 * The coin's smallest units that cover `kopecks` at `rate`, rounded up so the buyer never underpays:
 * ceil(kopecks / 100 × 10^decimals / (rate / 10^8)).
 */
export function coinUnitsFor(kopecks: number, coin: Coin, rates: ExchangeRates): bigint {
  const numerator = BigInt(kopecks) * 10n ** BigInt(COIN_DECIMALS[coin]) * RATE_SCALE;
  const denominator = 100n * rates[coin];
  return (numerator + denominator - 1n) / denominator;
}

/** `"1.052632"` from 1052632 units of a 6-decimal coin: always exactly the coin's decimals. */
export function formatCoinUnits(units: bigint, coin: Coin): string {
  const decimals = COIN_DECIMALS[coin];
  const scale = 10n ** BigInt(decimals);
  return `${units / scale}.${(units % scale).toString().padStart(decimals, '0')}`;
}
