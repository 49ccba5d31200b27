import { formatKopecks } from '@pl/money';
import {
  cursorBigint,
  cursorCodec,
  formatMoscow,
  formatMoscowOrNull,
  type MerchantShop,
  type MerchantShopPage,
  type Mode,
  type PayoutSchedule,
} from '@pl/contracts';
import type { Shop } from './shop';

/**
 * A position in a merchant's shop list (id descending). Ids are safe integers, so 16 digits suffice, and no
 * cursor this codec reads can overflow Postgres' bigint.
 */
const shopCursor = cursorCodec<{ id: bigint }>({ id: cursorBigint(16) });

export const decodeShopCursor = (text: string): bigint => shopCursor.decode(text).id;

/** The schedule of one mode as the shop object shows it: `manual` when there is none. */
const payoutScheduleView = (shop: Shop, mode: Mode): PayoutSchedule => {
  const schedule = shop.payoutSchedules[mode];
  if (!schedule) return { interval: 'manual', destination_id: null, minimum: null };
  return { interval: schedule.interval, destination_id: schedule.destinationId, minimum: formatKopecks(schedule.minimumKopecks) };
};

/** The shop as its merchant reads it in `mode`: settings and dates, never a secret or a cashier key. */
export const toMerchantShop = (shop: Shop, mode: Mode): MerchantShop => ({
  id: shop.id,
  name: shop.name,
  status: shop.status,
  fee_payer: shop.feePayer,
  crypto_bps: shop.cryptoBps,
  sbp_bps: shop.sbpBps,
  webhook_url: shop.webhookUrl,
  webhook_events: shop.webhookEvents,
  payment_methods: shop.paymentMethods,
  webhook_secret_set: shop.hasWebhookSecret,
  previous_secret_valid_until: formatMoscowOrNull(shop.previousSecretValidUntil),
  payout_schedule: payoutScheduleView(shop, mode),
  created_at: formatMoscow(shop.createdAt),
  updated_at: formatMoscow(shop.updatedAt),
});

export interface ShopPage {
  items: Shop[];
  hasMore: boolean;
}

export const toMerchantShopPage = (page: ShopPage, mode: Mode): MerchantShopPage => {
  const last = page.items.at(-1);
  return {
    shops: page.items.map((shop) => toMerchantShop(shop, mode)),
    has_more: page.hasMore,
    next_cursor: page.hasMore && last ? shopCursor.encode({ id: BigInt(last.id) }) : null,
  };
};
