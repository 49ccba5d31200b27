import type { Identity, MerchantIdentity } from '@pl/contracts';
import { forbidden } from '@pl/errors';
import type { LinkRecord } from './link';
import type { LinkScope } from './ports';

/** Payment links are merchants' business: a platform service identity may not act on them. */
export function requireMerchant(identity: Identity): MerchantIdentity {
  if (identity.kind !== 'merchant') throw forbidden('Only merchant credentials may manage payment links');
  return identity;
}

/** The links a merchant identity may touch: its own, of its shop for a cashier key, in the mode its credential is of. */
export function scopeOf(who: MerchantIdentity): LinkScope {
  return who.shop_id === undefined
    ? { merchantId: who.merchant_id, mode: who.mode }
    : { merchantId: who.merchant_id, shopId: who.shop_id, mode: who.mode };
}

/**
 * A link of another merchant, or of another shop for a cashier key, is 403 on every route that names it. Only a link
 * of the caller's mode gets here: the other mode's links are not found before ownership is asked.
 */
export function assertLinkVisible(link: LinkRecord, who: MerchantIdentity): void {
  if (link.merchantId !== who.merchant_id) throw forbidden('Payment link belongs to another merchant');
  if (who.shop_id !== undefined && link.shopId !== who.shop_id) {
    throw forbidden("Payment link belongs to another shop than the cashier key's");
  }
}

/** Checkout and settlement are the platform's moves (the gateway acting for a buyer or a provider), never a merchant's. */
export function requireService(identity: Identity): void {
  if (identity.kind !== 'service') throw forbidden('Only platform services may act on checkout and settlement');
}

/** How this service identifies itself when it asks other services (the shops service lets it read any shop). */
export const LINKS_SERVICE_IDENTITY: Identity = { kind: 'service', service: 'links' };
