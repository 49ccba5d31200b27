import { z } from 'zod';
import { amountInput, CURSOR_MAX_LENGTH, moneyText, moscowDate, PAGE_LIMIT_MAX, pageQueryFields, positiveId, uuid } from './fields';
import { identifierText, text } from './text';
import { idempotencyClaim } from './idempotency';

/** docs/money.md, "Refunds". */
export const refundStatus = z.enum(['pending', 'succeeded', 'failed']);
export type RefundStatus = z.infer<typeof refundStatus>;

export const REFUND_REASON_MAX_LENGTH = 500;
/** The longest address of the four networks is far shorter; the length is only the text rule's bound. */
export const REFUND_DESTINATION_MAX_LENGTH = 128;
export const REFUND_FAILURE_REASON_MAX_LENGTH = 500;

/** The refund object of both route families and of `refund.succeeded` / `refund.failed` events. */
export const refund = z.object({
  id: uuid,
  payment_link_id: uuid,
  shop_id: positiveId,
  amount: moneyText,
  currency: z.literal('RUB'),
  status: refundStatus,
  reason: z.string().nullable(),
  /** The buyer's address on the link's crypto network; null for refunds through the provider (SBP, no method). */
  destination: z.string().nullable(),
  /** Set when the provider accepted the refund (at creation, for the sandbox provider). */
  gateway_refund_id: z.string().nullable(),
  failure_reason: z.string().nullable(),
  /**
   * Set when the refund gives back a payment that arrived after its link closed (an operator's resolve): its money
   * never reached the shop's balance, and if it fails the payment awaits resolution again. Null for the merchant's own.
   */
  late_payment_id: uuid.nullable(),
  livemode: z.boolean(),
  created_at: moscowDate,
  updated_at: moscowDate,
});
export type Refund = z.infer<typeof refund>;

export const refundPage = z.object({
  refunds: z.array(refund),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});
export type RefundPage = z.infer<typeof refundPage>;

/**
 * Body of `POST …/payment-links/{id}/refunds`. `amount` as on create (default: all that is refundable);
 * `destination` is required for a link paid on a crypto network and refused otherwise (the links service
 * judges it against the link, after this shape check).
 */
export const createRefundBody = z.strictObject({
  amount: amountInput.optional(),
  reason: text({ max: REFUND_REASON_MAX_LENGTH, lineBreaks: true }).nullable().optional(),
  destination: identifierText(REFUND_DESTINATION_MAX_LENGTH).nullable().optional(),
});
export type CreateRefundBody = z.output<typeof createRefundBody>;

/** Query of `GET …/refunds`. */
export const listRefundsQuery = z.strictObject({
  payment_link_id: uuid.optional(),
  shop_id: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(positiveId)
    .optional(),
  status: refundStatus.optional(),
  ...pageQueryFields,
});

/** Body of `POST /api/v1/refunds/{id}/simulate` (test refunds only). */
export const simulateRefundBody = z.strictObject({ status: z.enum(['succeeded', 'failed']) });

// NATS commands of the links service (the merchant and mode come from the identity token).
export const createRefundCommand = z.strictObject({
  payment_link_id: uuid,
  /** Kopecks; null = all that is refundable. */
  amount_kopecks: z.number().int().min(1).nullable(),
  reason: z
    .string()
    .max(4 * REFUND_REASON_MAX_LENGTH)
    .nullable(),
  destination: z
    .string()
    .max(4 * REFUND_DESTINATION_MAX_LENGTH)
    .nullable(),
  /** Present when the request carried an Idempotency-Key: the links service keeps it with the refund. */
  idempotency: idempotencyClaim.optional(),
});
export type CreateRefundCommand = z.infer<typeof createRefundCommand>;

export const idempotentRefundReply = z.strictObject({ refund, replayed: z.boolean() });
export type IdempotentRefundReply = z.infer<typeof idempotentRefundReply>;

export const refundIdCommand = z.strictObject({ id: uuid });

export const listRefundsCommand = z.strictObject({
  payment_link_id: uuid.nullable(),
  shop_id: positiveId.nullable(),
  status: refundStatus.nullable(),
  limit: z.number().int().min(1).max(PAGE_LIMIT_MAX),
  cursor: identifierText(CURSOR_MAX_LENGTH).nullable(),
});
export type ListRefundsCommand = z.infer<typeof listRefundsCommand>;

/**
 * A provider's (or the operator's, or the test simulator's) final word on a refund. From a provider callback the
 * refund is named by `gateway_refund_id`; the operator and the simulator name it by `refund_id`.
 */
export const settleRefundCommand = z.strictObject({
  provider: z.string().min(1).max(64).nullable(),
  gateway_refund_id: z.string().min(1).max(200).nullable(),
  refund_id: uuid.nullable(),
  status: z.enum(['succeeded', 'failed']),
  failure_reason: z
    .string()
    .max(4 * REFUND_FAILURE_REASON_MAX_LENGTH)
    .nullable(),
});
export type SettleRefundCommand = z.infer<typeof settleRefundCommand>;

/** Body of a sandbox refund callback, `POST /callbacks/v1/sandbox` (signed as payment callbacks). */
export const providerRefundCallbackBody = z.strictObject({
  gateway_refund_id: identifierText(200),
  status: z.enum(['succeeded', 'failed']),
  /**
   * The provider's words, taken as they come (line breaks, controls, any length up to the settle's bound): its
   * verdict on money is never refused over its text, which the links service makes safe for display.
   */
  failure_reason: z
    .string()
    .max(4 * REFUND_FAILURE_REASON_MAX_LENGTH)
    .nullable()
    .optional(),
});
export type ProviderRefundCallbackBody = z.infer<typeof providerRefundCallbackBody>;
