import { z } from 'zod';
import { moneyText, moscowDate, positiveId, uuid } from './fields';

/** Why money that arrived did not simply pay a pending link (docs/money.md, "Unresolved payments"). */
export const UNRESOLVED_REASONS = ['late', 'duplicate', 'underpaid', 'overpaid', 'aml_hold'] as const;
export const unresolvedReason = z.enum(UNRESOLVED_REASONS);
export const unresolvedStatus = z.enum(['unresolved', 'settled', 'refunded']);

/**
 * An unresolved payment as the API and its events show it: `amount` is the RUB that arrived (the surplus for
 * `overpaid`), `payer_currency` / `payer_crypto_amount` the coin that did (null for SBP); `refund_id` the refund that
 * resolved it.
 */
export const unresolvedPayment = z.object({
  id: uuid,
  shop_id: positiveId,
  payment_link_id: uuid,
  reason: unresolvedReason,
  provider: z.string(),
  gateway_payment_id: z.string(),
  amount: moneyText,
  payer_currency: z.string().nullable(),
  payer_crypto_amount: z.string().nullable(),
  status: unresolvedStatus,
  refund_id: uuid.nullable(),
  created_at: moscowDate,
  resolved_at: moscowDate.nullable(),
  livemode: z.boolean(),
});
export type UnresolvedPaymentView = z.infer<typeof unresolvedPayment>;
