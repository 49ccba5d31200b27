import type { BuyerLinkView } from '@pl/contracts';
import type { LinkRecord } from './link';
import { toPaymentLink } from './link-view';

/** The buyer-safe view: the link object without what only the merchant may see, plus the shop's name. */
export function toBuyerLinkView(link: LinkRecord, shopName: string, publicBaseUrl: string): BuyerLinkView {
  // Destructured away rather than copied field by field, so a field added to the link object later is
  // a conscious choice here (the contract's buyerLinkView is strict about what it omits).
  const {
    merchant_credit: _merchantCredit,
    platform_revenue: _platformRevenue,
    fee_percent_bp: _feePercentBp,
    order_id: _orderId,
    ...visible
  } = toPaymentLink(link, publicBaseUrl);
  return { ...visible, shop_name: shopName };
}
