import { moscowDateOf } from './moscow-day';

/** Scheduled payouts are made from 10:00 Moscow time (docs/payouts.md, "Automatic payouts"). */
const PAYOUT_HOUR_MS = 10 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The daily period an instant falls in, named by the Moscow date it starts on: a period runs from 10:00 Moscow to the
 * next day's 10:00, so 09:59 still belongs to yesterday's (a replica down at 10:00 catches up until then).
 */
export const dailyPeriodOf = (now: Date): string => moscowDateOf(new Date(now.getTime() - PAYOUT_HOUR_MS));

/** The weekly period an instant falls in: from a Monday's 10:00 Moscow to the next Monday's, named by that Monday. */
export function weeklyPeriodOf(now: Date): string {
  const day = dailyPeriodOf(now);
  const midnight = Date.parse(`${day}T00:00:00Z`);
  const sinceMonday = (new Date(midnight).getUTCDay() + 6) % 7;
  return new Date(midnight - sinceMonday * DAY_MS).toISOString().slice(0, 10);
}

/** The instant a period (its Moscow start date) begins: 10:00 Moscow, 07:00Z. */
export const periodStartOf = (period: string): Date => new Date(Date.parse(`${period}T10:00:00+03:00`));

/** The period of `interval` at `now`, and when it began. */
export function periodOf(interval: 'daily' | 'weekly', now: Date): { period: string; startsAt: Date } {
  const period = interval === 'daily' ? dailyPeriodOf(now) : weeklyPeriodOf(now);
  return { period, startsAt: periodStartOf(period) };
}

/** When the next scheduled payout of `interval` is due after `now` (the next period's start). */
export function nextPayoutAt(interval: 'daily' | 'weekly', now: Date): Date {
  const { startsAt } = periodOf(interval, now);
  return new Date(startsAt.getTime() + (interval === 'daily' ? 1 : 7) * DAY_MS);
}
