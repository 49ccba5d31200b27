import { z } from 'zod';
import { CURSOR_MAX_LENGTH, moneyText, moscowDate, PAGE_LIMIT_MAX, pageQueryFields, positiveId, uuid } from './fields';
import { REFUND_DESTINATION_MAX_LENGTH } from './refunds';
import { identifierText } from './text';

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

export const unresolvedPaymentPage = z.object({
  unresolved_payments: z.array(unresolvedPayment),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});
export type UnresolvedPaymentPage = z.infer<typeof unresolvedPaymentPage>;

/** Query of `GET …/unresolved-payments`. */
export const listUnresolvedQuery = z.strictObject({
  shop_id: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(positiveId)
    .optional(),
  status: unresolvedStatus.optional(),
  reason: unresolvedReason.optional(),
  ...pageQueryFields,
});

/** Body of `POST …/unresolved-payments/{id}/settle`: nothing to say. */
export const settleUnresolvedBody = z.strictObject({});
/** Body of `POST …/unresolved-payments/{id}/refund`: the buyer's address, for a crypto payment only. */
export const refundUnresolvedBody = z.strictObject({ destination: identifierText(REFUND_DESTINATION_MAX_LENGTH).nullable().optional() });

// NATS commands of the links service (the merchant and mode come from the identity token).
export const listUnresolvedCommand = z.strictObject({
  shop_id: positiveId.nullable(),
  status: unresolvedStatus.nullable(),
  reason: unresolvedReason.nullable(),
  limit: z.number().int().min(1).max(PAGE_LIMIT_MAX),
  cursor: identifierText(CURSOR_MAX_LENGTH).nullable(),
});
export type ListUnresolvedCommand = z.infer<typeof listUnresolvedCommand>;
export const unresolvedIdCommand = z.strictObject({ id: uuid });
export const resolveUnresolvedCommand = z.strictObject({
  id: uuid,
  action: z.enum(['settle', 'refund']),
  destination: identifierText(REFUND_DESTINATION_MAX_LENGTH).nullable(),
});
export type ResolveUnresolvedCommand = z.infer<typeof resolveUnresolvedCommand>;
