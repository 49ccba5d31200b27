/** Moscow has kept UTC+3 all year since 2014, so a fixed offset is exact and needs no tz database. */
const MOSCOW_OFFSET_MS = 3 * 60 * 60 * 1000;

/** RFC 3339 in Moscow time to the second: `2026-11-22T10:15:00+03:00`. */
export function formatMoscow(instant: Date): string {
  const ms = instant.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('Cannot format an invalid date');
  // Floor to the second so a time never reads later than it happened.
  const shifted = new Date(Math.floor(ms / 1000) * 1000 + MOSCOW_OFFSET_MS);
  return `${shifted.toISOString().slice(0, 19)}+03:00`;
}

export const formatMoscowOrNull = (instant: Date | null): string | null => (instant === null ? null : formatMoscow(instant));
