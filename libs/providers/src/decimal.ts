/**
 * Exact decimal arithmetic over the provider's amount strings ("0.00123400", "1259.19"): an amount is an integer
 * count of 10^-scale units, so no value ever passes through a float.
 */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

const DECIMAL_TEXT = /^(\d{1,30})(?:\.(\d{1,30}))?$/;

/** A non-negative decimal from its text, or null when the text is not one. */
export function parseDecimal(text: string): Decimal | null {
  const m = DECIMAL_TEXT.exec(text);
  if (!m) return null;
  const fraction = m[2] ?? '';
  return { units: BigInt(`${m[1] ?? '0'}${fraction}`), scale: fraction.length };
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** `a - b`, or null when negative. */
export function subtractDecimal(a: Decimal, b: Decimal): Decimal | null {
  const scale = Math.max(a.scale, b.scale);
  const units = a.units * pow10(scale - a.scale) - b.units * pow10(scale - b.scale);
  return units < 0n ? null : { units, scale };
}

export function formatDecimal(d: Decimal): string {
  if (d.scale === 0) return d.units.toString();
  const text = d.units.toString().padStart(d.scale + 1, '0');
  return `${text.slice(0, -d.scale)}.${text.slice(-d.scale)}`;
}

export const isZero = (d: Decimal): boolean => d.units === 0n;

/**
 * The RUB value, in kopecks, of `arrived` coins at the invoice's own rate: `invoice` (RUB) x arrived / asked,
 * rounded down to the kopeck (docs/product-decisions.md: the rule for a partial or surplus payment). Null when `asked`
 * is zero, where no rate exists.
 */
export function valueAtInvoiceRate(invoice: Decimal, asked: Decimal, arrived: Decimal): bigint | null {
  if (asked.units === 0n) return null;
  // invoice.units/10^is x 100 x (arrived.units/10^rs) / (asked.units/10^as)
  const numerator = invoice.units * 100n * arrived.units * pow10(asked.scale);
  const denominator = pow10(invoice.scale) * pow10(arrived.scale) * asked.units;
  return numerator / denominator;
}
