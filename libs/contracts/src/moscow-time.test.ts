import { moscowDate } from './fields';
import { formatMoscow, formatMoscowOrNull } from './moscow-time';

describe('formatMoscow', () => {
  it('shifts a UTC instant by three hours and writes the +03:00 offset', () => {
    expect(formatMoscow(new Date('2026-11-22T07:15:00Z'))).toBe('2026-11-22T10:15:00+03:00');
  });

  it('rolls over to the next day, month and year in Moscow', () => {
    expect(formatMoscow(new Date('2026-12-31T22:30:05Z'))).toBe('2027-01-01T01:30:05+03:00');
  });

  it('drops fractions of a second without rounding up', () => {
    expect(formatMoscow(new Date('2026-11-22T07:15:59.999Z'))).toBe('2026-11-22T10:15:59+03:00');
  });

  it('keeps +03:00 in summer too, as Moscow has no daylight saving time', () => {
    expect(formatMoscow(new Date('2026-07-01T00:00:00Z'))).toBe('2026-07-01T03:00:00+03:00');
  });

  it('refuses an invalid date', () => {
    expect(() => formatMoscow(new Date('nope'))).toThrow(RangeError);
  });

  it('passes null through', () => {
    expect(formatMoscowOrNull(null)).toBeNull();
  });
});

describe('formatMoscow across a date boundary', () => {
  it('moves to the next day in Moscow and drops the milliseconds', () => {
    expect(formatMoscow(new Date('2026-01-31T22:30:15.999Z'))).toBe('2026-02-01T01:30:15+03:00');
  });

  it('matches the wire date contract', () => {
    expect(moscowDate.safeParse(formatMoscow(new Date())).success).toBe(true);
  });
});
