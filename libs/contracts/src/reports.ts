import { z } from 'zod';
import { CURSOR_MAX_LENGTH, moneyText, moscowDate, positiveId, uuid } from './fields';
import { shopIdText } from './ledger';
import { identifierText } from './text';

/**
 * A calendar day as `YYYY-MM-DD` that exists (no 2026-02-30): the day of the daily report, in Moscow time.
 * Whether it is already over (or today) is the links service's judgement, against its clock.
 */
export const reportDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
  .refine((text) => {
    const day = new Date(`${text}T00:00:00Z`);
    return Number.isFinite(day.getTime()) && day.toISOString().slice(0, 10) === text;
  }, 'must be a date that exists');

/** `GET /merchant/v1/reports/daily`, `GET /api/v1/reports/daily`: both required. */
export const dailyReportQuery = z.strictObject({ shop_id: shopIdText, date: reportDate });

/**
 * What one row of the daily report records (docs/money.md, "Daily report"). The `unresolved_payment` row is the
 * money's arrival (nothing credited yet); each resolution is a row of its own on the day it happened. A row type
 * for payouts joins this list when payouts exist.
 */
export const dailyReportRowType = z.enum([
  'payment',
  'refund',
  'refund_failed',
  'unresolved_payment',
  'unresolved_payment_settled',
  'unresolved_payment_refunded',
  'unresolved_payment_refund_failed',
  'payout',
  'payout_returned',
]);
export type DailyReportRowType = z.infer<typeof dailyReportRowType>;

/**
 * One row of the registry. `fee` and `net` are null on a row that did not move the shop's balance (an unresolved
 * payment's arrival, its refund to the buyer): the totals are of the rows that did, and equal the ledger's.
 */
export const dailyReportRow = z.object({
  /** The payment link's, refund's, unresolved payment's or payout's id. */
  id: uuid,
  type: dailyReportRowType,
  at: moscowDate,
  amount: moneyText,
  fee: moneyText.nullable(),
  net: moneyText.nullable(),
  order_id: z.string().nullable(),
  /** Where a payout's money went, masked; null on every other row. */
  destination: z.string().nullable(),
  /** The status its object has now (a link's, a refund's, an unresolved payment's). */
  status: z.string(),
});
export type DailyReportRow = z.infer<typeof dailyReportRow>;

export const dailyReportPage = z.object({
  rows: z.array(dailyReportRow),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});
export type DailyReportPage = z.infer<typeof dailyReportPage>;

/** The largest page of the report on the bus: 500 rows of at most about 1.1 KB each (ADR 7), about 0.55 MB. */
export const DAILY_REPORT_PAGE_MAX = 500;

// NATS command of the links service (merchant and mode from the identity token).
export const dailyReportCommand = z.strictObject({
  shop_id: positiveId,
  date: reportDate,
  limit: z.number().int().min(1).max(DAILY_REPORT_PAGE_MAX),
  cursor: identifierText(CURSOR_MAX_LENGTH).nullable(),
});
export type DailyReportCommand = z.infer<typeof dailyReportCommand>;

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
