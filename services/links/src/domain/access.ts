import type { Identity, MerchantIdentity } from '@pl/contracts';
import { forbidden } from '@pl/errors';
import type { LinkRecord } from './link';
import type { LinkScope } from './ports';

/** Payment links are merchants' business: a platform service identity may not act on them. */
export function requireMerchant(identity: Identity): MerchantIdentity {
  if (identity.kind !== 'merchant') throw forbidden('Only merchant credentials may manage payment links');
  return identity;
}

export function scopeOf(who: MerchantIdentity): LinkScope {
  return who.shop_id === undefined ? { merchantId: who.merchant_id } : { merchantId: who.merchant_id, shopId: who.shop_id };
}

/** A link of another merchant, or of another shop for a cashier key, is 403 on every route that names it. */
export function assertLinkVisible(link: LinkRecord, who: MerchantIdentity): void {
  if (link.merchantId !== who.merchant_id) throw forbidden('Payment link belongs to another merchant');
  if (who.shop_id !== undefined && link.shopId !== who.shop_id) {
    throw forbidden("Payment link belongs to another shop than the cashier key's");
  }
}
