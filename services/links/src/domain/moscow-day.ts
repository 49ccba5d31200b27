/** Moscow keeps UTC+3 all year (no DST since 2014): a Moscow day is a fixed 24-hour window of UTC. */
const MOSCOW_OFFSET_MS = 3 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A Moscow calendar day as a half-open window of instants: [from, to). */
export interface MoscowDay {
  from: Date;
  to: Date;
}

/** The window of `date` (`YYYY-MM-DD`, already known to exist): from its 00:00 Moscow (21:00Z the day before). */
export function moscowDay(date: string): MoscowDay {
  const from = new Date(Date.parse(`${date}T00:00:00Z`) - MOSCOW_OFFSET_MS);
  return { from, to: new Date(from.getTime() + DAY_MS) };
}

/** The Moscow calendar date (`YYYY-MM-DD`) an instant falls on. */
export const moscowDateOf = (instant: Date): string => new Date(instant.getTime() + MOSCOW_OFFSET_MS).toISOString().slice(0, 10);
