/**
 * Money in integer kopecks. Amounts enter as the exact source text of a JSON number or a decimal
 * string and leave as `"<digits>.<2 digits>"`; no float ever holds a money value.
 */

/** Who bears the platform fee; the one list behind the fee math, the wire enum (`@pl/contracts`) and the shops' rows. */
export const FEE_PAYERS = ['merchant', 'client', 'split'] as const;
export type FeePayer = (typeof FEE_PAYERS)[number];

export const MAX_AMOUNT_KOPECKS = 9_999_999_999n;
const AMOUNT_TEXT = /^(0|[1-9][0-9]{0,7})(\.[0-9]{1,2})?$/;

/** Kopecks from the exact text of an amount, or null when the text is not an acceptable amount. */
export function parseAmountText(text: string): number | null {
  const m = AMOUNT_TEXT.exec(text);
  if (!m) return null;
  const rubles = BigInt(m[1] ?? '0');
  const fraction = (m[2] ?? '.').slice(1).padEnd(2, '0');
  const kopecks = rubles * 100n + BigInt(fraction);
  if (kopecks <= 0n || kopecks > MAX_AMOUNT_KOPECKS) return null;
  return Number(kopecks);
}

/** `"1234.50"` from 123450 kopecks. */
export function formatKopecks(kopecks: number | bigint): string {
  const k = BigInt(kopecks);
  const sign = k < 0n ? '-' : '';
  const abs = k < 0n ? -k : k;
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}

export interface LinkAmounts {
  fee: number;
  payerAmount: number;
  merchantCredit: number;
  platformRevenue: number;
}

/** fee = round_half_up(amount × bps / 10000); kopeck values stay far below 2^53 so bigint is for exactness only. */
export function computeFee(amountKopecks: number, feeBps: number): number {
  const product = BigInt(amountKopecks) * BigInt(feeBps);
  return Number((product * 2n + 10000n) / 20000n);
}

/**
 * The three amounts of a link. For `split` the odd kopeck goes to the buyer's side, so
 * payer_amount − merchant_credit is always exactly the fee.
 */
export function computeAmounts(amountKopecks: number, feeBps: number, feePayer: FeePayer): LinkAmounts {
  const fee = computeFee(amountKopecks, feeBps);
  switch (feePayer) {
    case 'merchant':
      return { fee, payerAmount: amountKopecks, merchantCredit: amountKopecks - fee, platformRevenue: fee };
    case 'client':
      return { fee, payerAmount: amountKopecks + fee, merchantCredit: amountKopecks, platformRevenue: fee };
    case 'split': {
      const buyerHalf = Math.ceil(fee / 2);
      const merchantHalf = Math.floor(fee / 2);
      return { fee, payerAmount: amountKopecks + buyerHalf, merchantCredit: amountKopecks - merchantHalf, platformRevenue: fee };
    }
  }
}
