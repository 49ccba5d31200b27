import { z } from 'zod';
import { failureReason, feePayer, linkStatus, moneyText, moscowDate, positiveId, uuid } from './fields';

/** The payment-link object of the interface: every field of the resource table, null where unset. */
export const paymentLink = z.object({
  id: uuid,
  shop_id: positiveId,
  order_id: z.string().nullable(),
  description: z.string().nullable(),
  return_url: z.string().nullable(),
  currency: z.literal('RUB'),
  amount: moneyText,
  fee_bps: z.number().int(),
  fee_percent_bp: z.number().int(),
  fee_payer: feePayer,
  payer_amount: moneyText,
  merchant_credit: moneyText,
  platform_revenue: moneyText,
  status: linkStatus,
  /** Why a failed link failed (docs/product-decisions.md, "Payment providers"); null unless `status` is `failed`. */
  failure_reason: failureReason.nullable(),
  /** The sum of the link's succeeded refunds (docs/money.md, "Refunds"); a refunded link stays `paid`. */
  amount_refunded: moneyText,
  gateway_provider: z.string().nullable(),
  gateway_payment_id: z.string().nullable(),
  to_currency: z.string().nullable(),
  network: z.string().nullable(),
  deposit_address: z.string().nullable(),
  payer_currency: z.string().nullable(),
  payer_crypto_amount: z.string().nullable(),
  qr: z.string().nullable(),
  checkout_url: z.string(),
  pay_url: z.string(),
  paymentUrl: z.string(),
  expires_at: moscowDate.nullable(),
  paid_at: moscowDate.nullable(),
  created_at: moscowDate,
  updated_at: moscowDate,
  /** false for a link created with test credentials (docs/test-mode.md): no money moves for it. */
  livemode: z.boolean(),
});
export type PaymentLink = z.infer<typeof paymentLink>;

/**
 * A page of links as the links service answers `links.list`: the links once. Its JSON is written with
 * `payment_links` last (`{"has_more":…,"next_cursor":…,"payment_links":[…]}`), so the gateway can add the
 * `payments` alias around the array's bytes without parsing them.
 */
export const paymentLinkPage = z.object({
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
  payment_links: z.array(paymentLink),
});
export type PaymentLinkPage = z.infer<typeof paymentLinkPage>;

/** The list object of the HTTP API: the page plus `payments`, the interface's alias of `payment_links`. */
export const paymentLinkList = z.object({
  payment_links: z.array(paymentLink),
  payments: z.array(paymentLink),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});
export type PaymentLinkList = z.infer<typeof paymentLinkList>;
