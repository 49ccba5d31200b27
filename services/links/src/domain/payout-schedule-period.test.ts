import { dailyPeriodOf, nextPayoutAt, periodStartOf, weeklyPeriodOf } from './payout-schedule-period';

// 2026-12-07 is a Monday; Moscow is UTC+3, so 10:00 Moscow is 07:00Z.
describe('payout schedule periods', () => {
  it('starts a daily period at 10:00 Moscow: 09:59 is still the day before', () => {
    expect(dailyPeriodOf(new Date('2026-12-08T06:59:59Z'))).toBe('2026-12-07');
    expect(dailyPeriodOf(new Date('2026-12-08T07:00:00Z'))).toBe('2026-12-08');
    // 23:30 Moscow on the 8th is 20:30Z the same day; 00:30 Moscow on the 9th is still the 8th's period.
    expect(dailyPeriodOf(new Date('2026-12-08T21:30:00Z'))).toBe('2026-12-08');
  });

  it('starts a weekly period at Monday 10:00 Moscow and keeps it until the next Monday 10:00', () => {
    expect(weeklyPeriodOf(new Date('2026-12-07T06:59:59Z'))).toBe('2026-11-30');
    expect(weeklyPeriodOf(new Date('2026-12-07T07:00:00Z'))).toBe('2026-12-07');
    expect(weeklyPeriodOf(new Date('2026-12-10T12:00:00Z'))).toBe('2026-12-07');
    expect(weeklyPeriodOf(new Date('2026-12-14T06:59:59Z'))).toBe('2026-12-07');
  });

  it('names when a period starts and when the next payout is due', () => {
    expect(periodStartOf('2026-12-07').toISOString()).toBe('2026-12-07T07:00:00.000Z');
    expect(nextPayoutAt('daily', new Date('2026-12-08T06:00:00Z')).toISOString()).toBe('2026-12-08T07:00:00.000Z');
    expect(nextPayoutAt('weekly', new Date('2026-12-08T12:00:00Z')).toISOString()).toBe('2026-12-14T07:00:00.000Z');
  });
});
