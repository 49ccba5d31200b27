import { z } from 'zod';
import { formatMoscow } from '@pl/contracts';
import { formatKopecks } from '@pl/money';
import type { LatePayment } from '@pl/links';
import type { Command } from '../command';
import { parseFlags } from '../flags';

const isoDateTime = z.iso.datetime({ offset: true });
const isoDate = z.iso.date();

/**
 * `--since`: an RFC 3339 date-time with its offset, or a calendar date meaning midnight in Moscow (the
 * platform's zone, as every date it prints).
 */
const sinceFlag = z
  .string()
  .refine((v) => isoDateTime.safeParse(v).success || isoDate.safeParse(v).success, {
    message: 'must be an ISO 8601 date (2026-11-24, from midnight Moscow time) or date-time with an offset (2026-11-24T09:30:00+03:00)',
  })
  .transform((v) => new Date(isoDate.safeParse(v).success ? `${v}T00:00:00+03:00` : v));

const flags = z.strictObject({ since: sinceFlag.optional() });

/** A late payment for the operator, in the API's formats: money in roubles, dates in Moscow time. */
export const latePaymentOutput = (late: LatePayment): object => ({
  id: late.id,
  link_id: late.linkId,
  link_status: late.linkStatus,
  merchant_id: late.merchantId,
  shop_id: late.shopId,
  order_id: late.orderId,
  provider: late.provider,
  gateway_payment_id: late.gatewayPaymentId,
  payer_amount: formatKopecks(late.payerAmount),
  received_at: formatMoscow(late.receivedAt),
});

/**
 * `payment:late [--since ISO]` -> `{ "late_payments": [...] }`, oldest first: payments a provider confirmed
 * for links that were no longer pending, each to refund or settle by hand (docs/operations.md, "Late payments").
 */
export const paymentLate: Command = {
  summary: 'list payments that arrived after their link was closed (to refund or settle by hand)',
  help: `Usage: payment:late [--since T]

Lists payments a provider confirmed for links that were no longer pending, oldest first
(docs/operations.md, "Late payments").

  --since T   only those received at or after T: a date (2026-11-24, from midnight Moscow time)
              or a date-time with its offset (2026-11-24T09:30:00+03:00)

Prints {"late_payments": [...]}.`,
  async run(args, ctx) {
    const f = parseFlags(args, { since: { type: 'string' } }, flags);
    const late = await ctx.latePayments().list(f.since ?? null);
    return { late_payments: late.map(latePaymentOutput) };
  },
};
