/**
 * The Home page's "next payout" slot (docs/reports.md). Automatic payouts (a shop's `payout_schedule`, the spec's
 * payouts.md) are not built yet, so it shows nothing. The hook: once the shop's schedule and its next run can be read,
 * load them here and show the date and the amount; the Home page already places this beside the balance, for one
 * shop at a time, so nothing else changes.
 */
export function NextPayout(_props: { shopId: number }) {
  return null;
}
