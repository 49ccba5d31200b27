const MOSCOW_OFFSET_MS = 3 * 3600 * 1000;

/**
 * RFC 3339 in Europe/Moscow, whole seconds, e.g. `2026-11-22T15:04:05+03:00`. Moscow has kept a
 * fixed +03:00 offset with no daylight saving since 2014, so a constant offset is exact.
 */
export function toMoscowIso(date: Date): string {
  return new Date(date.getTime() + MOSCOW_OFFSET_MS).toISOString().replace(/\.\d{3}Z$/, '+03:00');
}
