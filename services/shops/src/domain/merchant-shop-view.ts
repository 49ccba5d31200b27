import { cursorBigint, cursorCodec, formatMoscow, formatMoscowOrNull, type MerchantShop, type MerchantShopPage } from '@pl/contracts';
import type { Shop } from './shop';

/**
 * A position in a merchant's shop list (id descending). Ids are safe integers, so 16 digits suffice, and no
 * cursor this codec reads can overflow Postgres' bigint.
 */
const shopCursor = cursorCodec<{ id: bigint }>({ id: cursorBigint(16) });

export const decodeShopCursor = (text: string): bigint => shopCursor.decode(text).id;

/** The shop as its merchant reads it: settings and dates, never a secret or a cashier key. */
export const toMerchantShop = (shop: Shop): MerchantShop => ({
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
  created_at: formatMoscow(shop.createdAt),
  updated_at: formatMoscow(shop.updatedAt),
});

export interface ShopPage {
  items: Shop[];
  hasMore: boolean;
}

export const toMerchantShopPage = (page: ShopPage): MerchantShopPage => {
  const last = page.items.at(-1);
  return {
    shops: page.items.map(toMerchantShop),
    has_more: page.hasMore,
    next_cursor: page.hasMore && last ? shopCursor.encode({ id: BigInt(last.id) }) : null,
  };
};
