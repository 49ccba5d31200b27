import { z } from 'zod';
import { moneyText, positiveId } from './fields';
import { shopIdText } from './ledger';

/**
 * docs/reports.md: the dashboard Home page's summary, a shop's (or every shop of the account's) last days by Moscow
 * calendar day. Money in RUB decimals as everywhere on the wire; kopecks inside.
 */
export const SUMMARY_DAYS_DEFAULT = 30;
/** Ninety days at most: the statement stays one bounded read of the link indexes, and the page draws thirty. */
export const SUMMARY_DAYS_MAX = 90;

const summaryDays = z.number().int().min(1).max(SUMMARY_DAYS_MAX);
const count = z.number().int().min(0);
/** A Moscow calendar day, `2026-11-28`. */
const moscowDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
/** Paid among created, four decimals (0.6667); null when nothing was created to judge by. */
const sharePaid = z.number().min(0).max(1).nullable();

const summaryFigures = {
  /** The sum of `amount` of the links paid that day (their `paid_at` in that Moscow day). */
  gross_volume: moneyText,
  /** Links paid that day. */
  paid_count: count,
  /** Links created that day. */
  created_count: count,
  /** Of the links created that day, those paid by now (whenever paid). */
  created_paid_count: count,
  /** `created_paid_count / created_count`: the share of that day's links that got paid. */
  share_paid: sharePaid,
  /** Refunds made that day that did not fail (succeeded, or pending and holding their money). */
  refunds: moneyText,
};

const summaryDay = z.object({ date: moscowDay, ...summaryFigures });
export type SummaryDay = z.infer<typeof summaryDay>;

export const summary = z.object({
  /** The shop asked for; null: every shop of the account. */
  shop_id: positiveId.nullable(),
  currency: z.literal('RUB'),
  livemode: z.boolean(),
  /** The first and the last Moscow day (today), both included. */
  from: moscowDay,
  to: moscowDay,
  /** One entry a day, oldest first, days without a link included (zeros). */
  days: z.array(summaryDay),
  totals: z.object(summaryFigures),
});
export type Summary = z.infer<typeof summary>;

const daysText = z
  .string()
  .regex(/^[1-9][0-9]{0,2}$/, 'must be a positive integer')
  .transform(Number)
  .pipe(summaryDays);

/** `GET /api/v1/reports/summary?shop_id=&days=`. */
export const summaryQuery = z.strictObject({ shop_id: shopIdText.optional(), days: daysText.optional() });

/** The links service's command (merchant and mode from the identity token). */
export const summaryCommand = z.strictObject({ shop_id: positiveId.nullable(), days: summaryDays });
export type SummaryCommand = z.infer<typeof summaryCommand>;
