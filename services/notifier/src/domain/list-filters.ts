import type { MerchantIdentity, Mode } from '@pl/contracts';
import { forbidden } from '@pl/errors';
import type { ShopDirectory } from './delivery';

/** The merchant and shop a link's rows (events, deliveries) name; null when the link has none in that mode. */
export interface LinkOwners {
  linkOwner(mode: Mode, paymentLinkId: string): Promise<{ merchantId: string; shopId: number } | null>;
}

/** True when the caller may see what this merchant's shop owns (a cashier identity only its one shop's). */
export const mayRead = (identity: MerchantIdentity, owner: { merchantId: string; shopId: number }): boolean =>
  owner.merchantId === identity.merchant_id && (identity.shop_id === undefined || identity.shop_id === owner.shopId);

/**
 * The one rule of every list's filters (docs/product-decisions.md: the order of checks, as the link list applies it): a link or
 * shop a filter names is judged as a read of it would be, not by the rows found. Unknown (or a link of the other
 * mode) → 404, another merchant's (or another shop's for a cashier) → 403, whether or not it has rows here. A link
 * with rows here answers from them; one without is asked of its owner service.
 */
export async function assertFiltersVisible(
  owners: LinkOwners,
  directory: ShopDirectory,
  merchant: MerchantIdentity,
  filter: { payment_link_id: string | null; shop_id: number | null },
): Promise<void> {
  if (filter.payment_link_id !== null) {
    const owner = await owners.linkOwner(merchant.mode, filter.payment_link_id);
    if (owner === null) await directory.linkFor(merchant, filter.payment_link_id);
    else if (!mayRead(merchant, owner)) throw forbidden('Payment link belongs to another merchant');
  }
  if (filter.shop_id !== null) await directory.shopFor(merchant, filter.shop_id);
}
