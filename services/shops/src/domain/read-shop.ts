import { shopAccessDenial, type Identity } from '@pl/contracts';
import { forbidden, notFound, unauthorized } from '@pl/errors';
import { cashierKeyMode } from './cashier-key';
import type { Shop, ShopStore } from './shop';

/**
 * A shop for the caller: a merchant reads only its own shops (a cashier identity only its one shop);
 * platform services read any. Existence is checked before ownership, as the decisions order them.
 */
export async function getShopFor(shops: ShopStore, identity: Identity, shopId: number): Promise<Shop> {
  const shop = await shops.getShop(shopId);
  if (!shop) throw notFound('Shop not found');
  const denial = shopAccessDenial(identity, shop.id, shop.merchantId);
  if (denial) throw forbidden(denial);
  return shop;
}

/**
 * The shop a cashier key of either mode belongs to; only platform services (the gateway authenticating a key) may
 * ask. The answer does not say the mode: the caller reads it from the key's prefix, which the stored digest covers.
 */
export async function findShopByCashierKey(shops: ShopStore, identity: Identity, cashierKey: string): Promise<Shop> {
  if (identity.kind !== 'service') throw forbidden('Only platform services may look up cashier keys');
  if (cashierKeyMode(cashierKey) === null) throw unauthorized();
  const shop = await shops.findByCashierKey(cashierKey);
  if (!shop) throw unauthorized();
  return shop;
}
