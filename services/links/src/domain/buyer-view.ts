import type { BuyerLinkView, PaymentMethods } from '@pl/contracts';
import type { AttemptProgress } from './attempt';
import type { LinkRecord } from './link';
import { toPaymentLink } from './link-view';

/** What the checkout shows beyond the link: the methods offered now, and the selected payment's progress. */
export interface CheckoutState {
  methods: PaymentMethods;
  progress: AttemptProgress | null;
}

/** The progress the buyer sees: nothing until the provider has seen a payment. */
function progressView(progress: AttemptProgress | null): BuyerLinkView['payment_progress'] {
  if (progress === null || progress.status === 'unpaid') return null;
  return { status: progress.status, remaining_crypto_amount: progress.remainingCryptoAmount };
}

/** The buyer-safe view: the link object without what only the merchant may see, plus the shop's name and the checkout's state. */
export function toBuyerLinkView(link: LinkRecord, shopName: string, publicBaseUrl: string, checkout: CheckoutState): BuyerLinkView {
  // Destructured away rather than copied field by field, so a field added to the link object later is
  // a conscious choice here (the contract's buyerLinkView is strict about what it omits).
  const {
    merchant_credit: _merchantCredit,
    platform_revenue: _platformRevenue,
    fee_percent_bp: _feePercentBp,
    order_id: _orderId,
    ...visible
  } = toPaymentLink(link, publicBaseUrl);
  return { ...visible, shop_name: shopName, methods: checkout.methods, payment_progress: progressView(checkout.progress) };
}
