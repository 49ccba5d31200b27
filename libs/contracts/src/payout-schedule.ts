import { z } from 'zod';
import { amountInput, moneyText, moscowDate, positiveId, uuid } from './fields';
import { mode } from './mode';
import { payoutDestinationSnapshot } from './payouts';

/** docs/payouts.md, "Automatic payouts": a shop pays out by hand (`manual`, the default) or at 10:00 Moscow time. */
export const payoutInterval = z.enum(['manual', 'daily', 'weekly']);
export type PayoutInterval = z.infer<typeof payoutInterval>;
/** The intervals the scheduler acts on. */
export type ScheduledInterval = Exclude<PayoutInterval, 'manual'>;

/** The smallest `minimum` (the smallest payout, 100.00); the largest is PAYOUT_MAX. */
export const PAYOUT_SCHEDULE_MINIMUM_KOPECKS = 10_000;

/** A shop's schedule in the caller's mode, as the shop object shows it; `manual` has neither destination nor minimum. */
export const payoutSchedule = z.object({
  interval: payoutInterval,
  destination_id: uuid.nullable(),
  minimum: moneyText.nullable(),
});
export type PayoutSchedule = z.infer<typeof payoutSchedule>;

/**
 * `PUT /api/v1/shops/{id}/payout-schedule`: `{ interval: "manual" }` stops automatic payouts; `daily` and `weekly` need
 * the destination (the account's, of the session's mode) and the minimum (100.00 .. PAYOUT_MAX).
 */
export const setPayoutScheduleBody = z.strictObject({
  interval: payoutInterval,
  destination_id: uuid.nullable().optional(),
  minimum: amountInput.nullable().optional(),
});
export type SetPayoutScheduleBody = z.output<typeof setPayoutScheduleBody>;

/** The shops service's command (merchant identity; the mode is the identity's). */
export const setPayoutScheduleCommand = z.strictObject({
  shop_id: positiveId,
  interval: payoutInterval,
  destination_id: uuid.nullable(),
  minimum_kopecks: z.number().int().min(1).nullable(),
});
export type SetPayoutScheduleCommand = z.infer<typeof setPayoutScheduleCommand>;

/** One schedule the scheduler acts on (service identity). */
export const scheduledPayoutShop = z.object({
  shop_id: positiveId,
  merchant_id: uuid,
  mode,
  interval: z.enum(['daily', 'weekly']),
  destination_id: uuid,
  minimum_kopecks: z.number().int().min(1),
  /** When it was last set: a period pays only the schedules set before its 10:00 (docs/adr/0046). */
  set_at: z.iso.datetime({ offset: true }),
});
export type ScheduledPayoutShop = z.infer<typeof scheduledPayoutShop>;

/** The most schedules one page carries (about 250 bytes each: well within one NATS message). */
export const PAYOUT_SCHEDULE_PAGE_MAX = 1000;

/** A keyset page of every shop's schedules, by (shop, mode); `after` is the last of the previous page. */
export const listPayoutSchedulesCommand = z.strictObject({
  after: z.strictObject({ shop_id: positiveId, mode }).nullable(),
  limit: z.number().int().min(1).max(PAYOUT_SCHEDULE_PAGE_MAX),
});
export type ListPayoutSchedulesCommand = z.infer<typeof listPayoutSchedulesCommand>;
export const payoutSchedulePage = z.object({ schedules: z.array(scheduledPayoutShop) });
export type PayoutSchedulePage = z.infer<typeof payoutSchedulePage>;

/**
 * What the gateway knows that a scheduled payout needs (service identity): whether the account's payouts are on hold,
 * whether it requires approval of each, and the destination (null when it is not the account's of that mode, or
 * deleted) with whether its cool-down is over.
 */
export const payoutContextCommand = z.strictObject({ merchant_id: uuid, mode, destination_id: uuid });
export type PayoutContextCommand = z.infer<typeof payoutContextCommand>;
export const payoutContext = z.object({
  on_hold: z.boolean(),
  requires_approval: z.boolean(),
  destination: payoutDestinationSnapshot.nullable(),
  destination_active: z.boolean(),
});
export type PayoutContext = z.infer<typeof payoutContext>;

/**
 * `GET /api/v1/shops/{id}/next-payout`: the shop's next scheduled payout in the session's mode. `scheduled_at` is the
 * next 10:00 Moscow of its interval; `amount` what it would pay if it ran now (available less the fee, at most
 * PAYOUT_MAX), null when that is below the minimum; all null but `interval` for `manual`.
 */
export const nextPayout = z.object({
  interval: payoutInterval,
  scheduled_at: moscowDate.nullable(),
  amount: moneyText.nullable(),
  minimum: moneyText.nullable(),
});
export type NextPayout = z.infer<typeof nextPayout>;
/** Links' command (merchant identity): the gateway has read the shop's schedule of the caller's mode. */
export const nextPayoutCommand = z.strictObject({
  shop_id: positiveId,
  interval: z.enum(['daily', 'weekly']),
  minimum_kopecks: z.number().int().min(1),
});
export type NextPayoutCommand = z.infer<typeof nextPayoutCommand>;
