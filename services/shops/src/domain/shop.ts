import { z } from 'zod';
import {
  bps,
  feePayer,
  identifierText,
  shopStatus,
  uuid,
  visibleName,
  webhookEvents,
  paymentMethodsPatch,
  type EventType,
  type PaymentMethods,
  type FeePayer,
  type ShopStatus,
  type ShopView,
  type Mode,
  type ScheduledInterval,
  type ScheduledPayoutShop,
} from '@pl/contracts';

/** A shop as the shops service holds it; the webhook secret itself never leaves the data layer here. */
export interface Shop {
  id: number;
  merchantId: string;
  name: string;
  status: ShopStatus;
  feePayer: FeePayer;
  cryptoBps: number;
  sbpBps: number;
  webhookUrl: string | null;
  /** The event types sent to `webhookUrl`; every event is recorded for the events API whatever this says. */
  webhookEvents: EventType[];
  /** The methods the shop takes; at least one is on (the database holds that rule). */
  paymentMethods: PaymentMethods;
  hasWebhookSecret: boolean;
  /** Until when the secret replaced by the latest rotation still signs; null when none does (any more). */
  previousSecretValidUntil: Date | null;
  /** The automatic payouts of each mode; null is `manual` (docs/payouts.md, "Automatic payouts"). */
  payoutSchedules: Record<Mode, StoredPayoutSchedule | null>;
  createdAt: Date;
  updatedAt: Date;
}

/** A shop's daily or weekly payouts in one mode: to the account's destination, once `available` reaches the minimum. */
export interface StoredPayoutSchedule {
  interval: ScheduledInterval;
  destinationId: string;
  minimumKopecks: number;
}

/** Where and how to sign a shop's webhooks, and which events it is sent (for the notifier). */
export interface WebhookTarget {
  url: string | null;
  secret: string | null;
  /** The secret before the latest rotation while its overlap lasts, else null. */
  previousSecret: string | null;
  webhookEvents: EventType[];
}

const shopName = visibleName(200);
const webhookSecret = identifierText(256);
/** The URL rule itself (scheme, private targets) is @pl/webhook-target's; this is the text rule and the decisions' limit. */
const webhookUrl = identifierText(2048);

/** Settings a shop is created with; unset ones take the product defaults (pending, merchant, 100, 100). */
export const newShopInput = z.strictObject({
  merchant_id: uuid,
  name: shopName,
  status: shopStatus.default('pending'),
  fee_payer: feePayer.default('merchant'),
  crypto_bps: bps.default(100),
  sbp_bps: bps.default(100),
  webhook_url: webhookUrl.nullable().default(null),
  webhook_secret: webhookSecret.nullable().default(null),
});
export type NewShopInput = z.input<typeof newShopInput>;
export type NewShop = z.output<typeof newShopInput>;

/** A change to a shop: only the given fields move; null clears the webhook URL or secret. */
export const shopPatchInput = z.strictObject({
  name: shopName.optional(),
  status: shopStatus.optional(),
  fee_payer: feePayer.optional(),
  crypto_bps: bps.optional(),
  sbp_bps: bps.optional(),
  webhook_url: webhookUrl.nullable().optional(),
  webhook_secret: webhookSecret.nullable().optional(),
  webhook_events: webhookEvents.optional(),
  /** Merged into the shop's methods: a member left out stays. */
  payment_methods: paymentMethodsPatch.optional(),
});
export type ShopPatch = z.output<typeof shopPatchInput>;

/** One keyset page of a merchant's shops, newest (highest id) first; `limit` rows at most. */
export interface ShopPageQuery {
  merchantId: string;
  /** The id of the last shop of the previous page; null for the first page. */
  beforeId: bigint | null;
  limit: number;
}

/** A new shop and its first cashier keys, one per mode: shown this once, stored only as digests. */
export interface CreatedShop {
  shop: Shop;
  /** The live key (`svc_live_…`). */
  cashierKey: string;
  /** The test key (`svc_test_…`): acts only on test links. */
  testCashierKey: string;
}

/** The storage port the use cases need; implemented by the data layer's ShopRepository. */
export interface ShopStore {
  createShop(input: NewShop): Promise<CreatedShop>;
  /** Applies a patch; setting `webhook_secret` outright ends any overlap of a previous secret. */
  updateShop(id: number, patch: ShopPatch): Promise<Shop>;
  getShop(id: number): Promise<Shop | null>;
  listShops(query: ShopPageQuery): Promise<Shop[]>;
  /** The shop of an active key of either mode (the key's prefix says which), or null. */
  findByCashierKey(cashierKey: string): Promise<Shop | null>;
  /**
   * Makes `secret` the shop's webhook secret; the replaced one keeps signing for `overlapMinutes` (none when 0
   * or when there was none), replacing any earlier previous secret. Returns until when it signs, or null.
   */
  rotateWebhookSecret(shopId: number, secret: string, overlapMinutes: number): Promise<Date | null>;
  /** Revokes the shop's active cashier key of `cashierKey`'s mode and adds `cashierKey`, in one transaction. */
  replaceCashierKeys(shopId: number, cashierKey: string): Promise<void>;
  /** Sets (or, with null, ends) the shop's schedule of one mode; returns the shop. Unknown shop: not_found. */
  setPayoutSchedule(shopId: number, mode: Mode, schedule: StoredPayoutSchedule | null): Promise<Shop>;
  /** Every shop's schedules, by (shop, mode), `limit` after `after`: the scheduler's list. */
  listPayoutSchedules(after: { shopId: number; mode: Mode } | null, limit: number): Promise<ScheduledPayoutShop[]>;
}

/** The shop as other services see it (the `shopView` contract): no secrets, no keys. */
export const toShopView = (shop: Shop): ShopView => ({
  id: shop.id,
  merchant_id: shop.merchantId,
  name: shop.name,
  status: shop.status,
  fee_payer: shop.feePayer,
  crypto_bps: shop.cryptoBps,
  sbp_bps: shop.sbpBps,
  webhook_url: shop.webhookUrl,
  webhook_events: shop.webhookEvents,
  payment_methods: shop.paymentMethods,
});
