import type { CryptoNetwork, Mode } from '@pl/contracts';
import type { SandboxProvider } from './sandbox.provider';

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

/**
 * The providers this deployment knows: the one new live payments go to, the sandbox that every test payment goes to,
 * and any others whose callbacks may still arrive. The test provider's type is the sandbox's own class, so no real
 * provider can be put there: a test link never reaches a gateway that moves money.
 */
export class ProviderRegistry {
  private readonly byNameMap: ReadonlyMap<string, PaymentProvider>;

  constructor(
    readonly live: PaymentProvider,
    readonly test: SandboxProvider,
    others: readonly PaymentProvider[] = [],
  ) {
    const byName = new Map<string, PaymentProvider>();
    for (const provider of [live, test, ...others]) {
      const known = byName.get(provider.name);
      // A callback names its provider; two providers of one name would let either settle the other's payments.
      if (known && known !== provider) throw new Error(`Two payment providers are named ${provider.name}`);
      byName.set(provider.name, provider);
    }
    this.byNameMap = byName;
  }

  /** Where a new payment of a link of `mode` goes. */
  forMode(mode: Mode): PaymentProvider {
    return mode === 'test' ? this.test : this.live;
  }

  byName(name: string): PaymentProvider | null {
    return this.byNameMap.get(name) ?? null;
  }
}
