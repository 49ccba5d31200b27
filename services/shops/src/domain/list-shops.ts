import type { Identity, ListShopsCommand } from '@pl/contracts';
import { decodeShopCursor, toMerchantShop, type ShopPage } from './merchant-shop-view';
import { requireShopManager } from './shop-access';
import type { Shop, ShopStore } from './shop';

/**
 * The bytes of shops one page may carry. A page travels as one NATS message (1 MiB by default) and a shop's
 * normalized webhook URL may reach 18 KiB (2048 characters, each percent-encoded up to 9 bytes), so 100 shops
 * at their largest would not fit: a page stops early instead, with `has_more`, and the cursor goes on from there.
 */
export const SHOP_PAGE_BYTES_MAX = 512 * 1024;

/** The first `limit` of `rows` that fit {@link SHOP_PAGE_BYTES_MAX} (always at least one), and whether more follow. */
export function fitShopPage(rows: readonly Shop[], limit: number): ShopPage {
  const items: Shop[] = [];
  let bytes = 0;
  for (const shop of rows.slice(0, limit)) {
    bytes += Buffer.byteLength(JSON.stringify(toMerchantShop(shop, 'live')));
    if (items.length > 0 && bytes > SHOP_PAGE_BYTES_MAX) break;
    items.push(shop);
  }
  return { items, hasMore: rows.length > items.length };
}

/** The caller's shops, newest first, one keyset page at a time (one row beyond the limit tells whether more follow). */
export async function listShops(shops: ShopStore, identity: Identity, command: ListShopsCommand): Promise<ShopPage> {
  const who = requireShopManager(identity);
  const beforeId = command.cursor === null ? null : decodeShopCursor(command.cursor);
  const rows = await shops.listShops({ merchantId: who.merchant_id, beforeId, limit: command.limit + 1 });
  return fitShopPage(rows, command.limit);
}
