import type { Identity, MerchantIdentity } from '@pl/contracts';
import { emailNotConfirmed, forbidden, notFound } from '@pl/errors';
import type { Shop, ShopStore } from './shop';

/**
 * Managing shops is the merchant's own business: its session or API key. A cashier key acts for one shop at
 * its till and may not change shops or reveal their credentials; a platform service has no merchant to act for.
 */
export function requireShopManager(identity: Identity): MerchantIdentity {
  if (identity.kind !== 'merchant') throw forbidden('Only merchant credentials may manage shops');
  if (identity.auth === 'cashier') throw forbidden('A cashier key may not manage shops');
  return identity;
}

/** A shop of the calling merchant: an unknown one is not_found, another merchant's forbidden, in that order. */
export async function getManagedShop(shops: ShopStore, identity: Identity, shopId: number): Promise<Shop> {
  const who = requireShopManager(identity);
  const shop = await shops.getShop(shopId);
  if (!shop) throw notFound('Shop not found');
  if (shop.merchantId !== who.merchant_id) throw forbidden('Shop belongs to another merchant');
  return shop;
}

/** Creating, rotating and reissuing need a confirmed email; reading and changing settings never do. */
export function requireConfirmedEmail(identity: Identity, what: string): void {
  if (!requireShopManager(identity).email_confirmed) throw emailNotConfirmed(what);
}
