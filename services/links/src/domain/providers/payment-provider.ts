import type { CryptoNetwork } from '@pl/contracts';

type PaymentMethod = 'crypto' | 'sbp';

/** What the checkout asks a provider for once the buyer picked a method. */
export interface PaymentRequest {
  linkId: string;
  method: PaymentMethod;
  /** Set for crypto, null for SBP. */
  network: CryptoNetwork | null;
  /** What the buyer owes in kopecks, after the method's fee was applied. */
  payerAmountKopecks: number;
}

/** The provider's payment as the link stores it (the gateway fields of the link object). */
export interface ProviderPayment {
  gateway_payment_id: string;
  deposit_address: string;
  qr: string;
  to_currency: string;
  payer_currency: string;
  /** The coin amount as a decimal string of the coin's precision; null for SBP. */
  payer_crypto_amount: string | null;
  /** The crypto network string, or `SBP`. */
  network: string;
}

/** What a refund asks of the provider that took the link's payment. */
export interface RefundRequest {
  refundId: string;
  linkId: string;
  /** The payment refunded: the link's own (null if the provider never named one). */
  gatewayPaymentId: string | null;
  amountKopecks: number;
  /** The buyer's address for a crypto refund; null for a refund to the payer through the provider (SBP). */
  destination: string | null;
}

/** The provider's acceptance of a refund: the id its refund callbacks will name. */
export interface ProviderRefund {
  gateway_refund_id: string;
}

/**
 * A payment gateway behind one interface. A provider confirms payments through `links.settle`
 * (the gateway turns its signed callback into that command) naming its own payment id.
 */
export interface PaymentProvider {
  readonly name: string;
  createPayment(request: PaymentRequest): ProviderPayment;
  /**
   * The link a payment id stands for when no method was ever selected (so no payment id is stored),
   * or null when this provider cannot tell. The sandbox can: its ids are `sbx_<link id>`.
   */
  linkIdFor(gatewayPaymentId: string): string | null;
  /**
   * Hands a refund to the provider, which accepts it (its final word comes later, through `links.refunds.settle`).
   * Called inside the refund's transaction, so a refused refund is never recorded as accepted.
   */
  createRefund(request: RefundRequest): ProviderRefund;
}
