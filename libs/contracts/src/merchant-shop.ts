import { z } from 'zod';
import { CURSOR_MAX_LENGTH, feePayer, moscowDate, PAGE_LIMIT_MAX, pageQueryFields, positiveId, shopStatus, bps } from './fields';
import { identifierText, visibleName } from './text';
import { mode } from './mode';
import { eventType } from './events';
import { paymentMethods, paymentMethodsPatch } from './payment-methods';
import { payoutSchedule } from './payout-schedule';

/** A shop's event subscription: known types, each at most once (docs/webhooks.md, "Event types"). */
export const webhookEvents = z
  .array(eventType)
  .max(32)
  .refine((types) => new Set(types).size === types.length, { message: 'must not repeat an event type' });

/** A shop's name: 1..100 code points (docs/product-decisions.md). */
export const SHOP_NAME_MAX_LENGTH = 100;
export const WEBHOOK_URL_MAX_LENGTH = 2048;
/** Minutes the previous webhook secret keeps signing after a rotation: 0..4320, default 1440. */
export const OVERLAP_MINUTES_MAX = 4320;
export const OVERLAP_MINUTES_DEFAULT = 1440;

export const shopName = visibleName(SHOP_NAME_MAX_LENGTH);
/** The text rule and the length limit; the URL rule itself (scheme, private targets) is @pl/webhook-target's. */
export const webhookUrlText = identifierText(WEBHOOK_URL_MAX_LENGTH);

/** A shop as its merchant reads it: no secret and no cashier key, ever. */
export const merchantShop = z.object({
  id: positiveId,
  name: z.string(),
  status: shopStatus,
  fee_payer: feePayer,
  crypto_bps: bps,
  sbp_bps: bps,
  webhook_url: z.string().nullable(),
  webhook_secret_set: z.boolean(),
  webhook_events: z.array(eventType),
  payment_methods: paymentMethods,
  previous_secret_valid_until: moscowDate.nullable(),
  /** The shop's automatic payouts in the caller's mode (docs/payouts.md, "Automatic payouts"). */
  payout_schedule: payoutSchedule,
  created_at: moscowDate,
  updated_at: moscowDate,
});
export type MerchantShop = z.infer<typeof merchantShop>;

export const merchantShopPage = z.object({
  shops: z.array(merchantShop),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});
export type MerchantShopPage = z.infer<typeof merchantShopPage>;

/** HTTP bodies of the session API's shop routes (strict: `status`, rates and anything else are 400). */
export const createShopBody = z.strictObject({
  name: shopName,
  webhook_url: webhookUrlText.nullable().optional(),
  fee_payer: feePayer.optional(),
});
export type CreateShopBody = z.output<typeof createShopBody>;

export const updateShopBody = z.strictObject({
  name: shopName.optional(),
  webhook_url: webhookUrlText.nullable().optional(),
  fee_payer: feePayer.optional(),
  webhook_events: webhookEvents.optional(),
  payment_methods: paymentMethodsPatch.optional(),
});
export type UpdateShopBody = z.output<typeof updateShopBody>;

export const rotateSecretBody = z.strictObject({
  overlap_minutes: z.number().int().min(0).max(OVERLAP_MINUTES_MAX).optional(),
});

export const rotatedSecret = z.object({
  webhook_secret: z.string(),
  /** `whsec_` + base64 of the secret's UTF-8 bytes, for the Standard Webhooks libraries. */
  standard_webhooks_secret: z.string(),
  previous_valid_until: moscowDate.nullable(),
});
export type RotatedSecret = z.infer<typeof rotatedSecret>;

/** A shop has one active cashier key per mode; reissuing one mode's key leaves the other's working. */
export const reissueCashierKeyBody = z.strictObject({ mode: mode.optional() });
export const reissuedCashierKey = z.object({ cashier_key: z.string(), mode });

/** Query of `GET /api/v1/shops` and `GET /merchant/v1/shops`. */
export const listShopsQuery = z.strictObject({
  ...pageQueryFields,
});

// NATS commands of the shops service; the caller's merchant comes from the identity token, never the body.
export const listShopsCommand = z.strictObject({
  limit: z.number().int().min(1).max(PAGE_LIMIT_MAX),
  cursor: identifierText(CURSOR_MAX_LENGTH).nullable(),
});
export type ListShopsCommand = z.infer<typeof listShopsCommand>;
export const shopIdCommand = z.strictObject({ shop_id: positiveId });
export const reissueCashierKeyCommand = z.strictObject({ shop_id: positiveId, mode });
export const createShopCommand = z.strictObject({
  name: shopName,
  webhook_url: webhookUrlText.nullable(),
  fee_payer: feePayer,
});
export type CreateShopCommand = z.infer<typeof createShopCommand>;
export const updateShopCommand = updateShopBody.extend({ shop_id: positiveId });
export type UpdateShopCommand = z.infer<typeof updateShopCommand>;
export const rotateSecretCommand = z.strictObject({
  shop_id: positiveId,
  overlap_minutes: z.number().int().min(0).max(OVERLAP_MINUTES_MAX),
});
export type RotateSecretCommand = z.infer<typeof rotateSecretCommand>;
