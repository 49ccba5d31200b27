/**
 * Raiffeisen writes amounts as JSON numbers in roubles (`1259.19`, `100.5`, `150`). Inside the platform they are
 * integer kopecks; these two functions are the only crossing, and neither lets a float hold a money value.
 */

/** At most 15 significant digits, so the text round-trips through a JS number unchanged (JSON.stringify writes it back). */
const MAX_KOPECKS = 999_999_999_999_99;

/** The JSON number text of an amount in kopecks, in its shortest form: 125919 -> `1259.19`, 10050 -> `100.5`, 100 -> `1`. */
export function kopecksToRoublesJson(kopecks: number): string {
  if (!Number.isSafeInteger(kopecks) || kopecks < 0 || kopecks > MAX_KOPECKS) throw new RangeError(`not an amount in kopecks: ${kopecks}`);
  const roubles = Math.floor(kopecks / 100);
  const cents = kopecks % 100;
  if (cents === 0) return String(roubles);
  return `${roubles}.${String(cents).padStart(2, '0').replace(/0$/, '')}`;
}

/** Digits, an optional fraction whose places past the second are zeros (`100.50`, `100.500`); no sign, no exponent. */
const ROUBLES_TEXT = /^(0|[1-9][0-9]{0,12})(?:\.([0-9]{1,2})0*)?$/;

/**
 * Kopecks from the JSON number text of a rouble amount as the provider wrote it (`100.50` -> 10050), or null when
 * the text is not an exact amount in kopecks (a third significant decimal, an exponent, a sign, too many digits).
 */
export function roublesJsonToKopecks(text: string): number | null {
  const m = ROUBLES_TEXT.exec(text);
  if (!m) return null;
  const fraction = (m[2] ?? '').padEnd(2, '0');
  return Number(m[1]) * 100 + Number(fraction);
}
