import type { FinalStatus } from './link';

/** A provider's `paid` for a link, as it arrived here: what a late payment is recorded from. */
export interface ArrivedPayment {
  /** The record's id, should it become one. */
  id: string;
  linkId: string;
  provider: string;
  gatewayPaymentId: string;
  /** This service's clock when the callback reached it. */
  receivedAt: Date;
}

/**
 * A payment confirmed for a link that had already left `pending`: the buyer's money arrived, the link stayed
 * as it was, and an operator refunds or settles it by hand. Amounts in kopecks.
 */
export interface LatePayment {
  id: string;
  linkId: string;
  /** The link's state when the payment arrived. */
  linkStatus: FinalStatus;
  provider: string;
  gatewayPaymentId: string;
  /** What the buyer was asked to pay, as the link held it then. */
  payerAmount: number;
  /** What settling it credits the shop, and what the platform earns, as the link held them then. */
  merchantCredit: number;
  platformRevenue: number;
  /** How an operator resolved it (once), and when; null while it waits. */
  resolution: 'settled' | 'refunded' | null;
  resolvedAt: Date | null;
  receivedAt: Date;
  /** Whose link it is, so the operator knows whom to talk to. */
  merchantId: string;
  shopId: number;
  orderId: string | null;
  /** The link's mode: a late test payment is no money to refund, though it is recorded the same way. */
  livemode: boolean;
}
