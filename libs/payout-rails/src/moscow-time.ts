/**
 * Dates of the 1C exchange format (`DD.MM.YYYY`, `HH:MM:SS`) in Moscow time, the bank's day. Moscow has kept UTC+3
 * all year since 2014, so a fixed offset is exact and needs no time-zone database.
 */
const MOSCOW_OFFSET_MS = 3 * 60 * 60 * 1000;

const pad = (n: number): string => String(n).padStart(2, '0');
const inMoscow = (at: Date): Date => new Date(at.getTime() + MOSCOW_OFFSET_MS);

/** `28.11.2026` */
export function moscowDate(at: Date): string {
  const m = inMoscow(at);
  return `${pad(m.getUTCDate())}.${pad(m.getUTCMonth() + 1)}.${m.getUTCFullYear()}`;
}

/** `10:15:00` */
export function moscowTime(at: Date): string {
  const m = inMoscow(at);
  return `${pad(m.getUTCHours())}:${pad(m.getUTCMinutes())}:${pad(m.getUTCSeconds())}`;
}

/** `2026-11-28` from the format's `28.11.2026`, or null when it is no calendar date. */
export function isoDateOf(formatDate: string): string | null {
  const m = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(formatDate);
  if (!m) return null;
  const day = m[1] ?? '';
  const month = m[2] ?? '';
  const year = m[3] ?? '';
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (date.getUTCDate() !== Number(day) || date.getUTCMonth() + 1 !== Number(month)) return null;
  return `${year}-${month}-${day}`;
}
