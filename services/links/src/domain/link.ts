import type { FailureReason, LinkStatus } from '@pl/contracts';
import type { FeePayer } from '@pl/money';

/** A payment link as the domain holds it: money in integer kopecks, dates as instants. */
export interface LinkRecord {
  id: string;
  merchantId: string;
  shopId: number;
  /** The link's world, fixed at creation: false for a test link, which no real provider ever sees. */
  livemode: boolean;
  orderId: string | null;
  description: string | null;
  /** Where the checkout page sends the buyer back once the link is over. */
  returnUrl: string | null;
  currency: 'RUB';
  amount: number;
  /** Rate of the selected method; the crypto rate until a method is selected. */
  feeBps: number;
  /** Compatibility field of the interface: the shop's crypto rate at creation. */
  feePercentBp: number;
  cryptoBps: number;
  sbpBps: number;
  feePayer: FeePayer;
  payerAmount: number;
  merchantCredit: number;
  platformRevenue: number;
  status: LinkStatus;
  /** Why a failed link failed; null unless failed. */
  failureReason: FailureReason | null;
  /** Kopecks given back by succeeded refunds; the link stays `paid` (pending refunds are not counted). */
  amountRefunded: number;
  gatewayProvider: string | null;
  gatewayPaymentId: string | null;
  toCurrency: string | null;
  network: string | null;
  depositAddress: string | null;
  payerCurrency: string | null;
  payerCryptoAmount: string | null;
  qr: string | null;
  expiresAt: Date;
  paidAt: Date | null;
  createdAt: Date;
  /** created_at in microseconds since the epoch: a JS Date keeps only milliseconds, the list cursor needs all six digits. */
  createdAtMicros: bigint;
  updatedAt: Date;
}

/** What create hands to the store; the store stamps created_at and derives expires_at from the database clock. */
export interface NewLink {
  id: string;
  merchantId: string;
  shopId: number;
  /** The mode of the credential that created it. */
  livemode: boolean;
  orderId: string | null;
  description: string | null;
  returnUrl: string | null;
  amount: number;
  feeBps: number;
  feePercentBp: number;
  cryptoBps: number;
  sbpBps: number;
  feePayer: FeePayer;
  payerAmount: number;
  merchantCredit: number;
  platformRevenue: number;
  expiresInMinutes: number;
}

/** Every move a link can make leaves `pending`; nothing ever moves a link back. */
export type FinalStatus = Exclude<LinkStatus, 'pending'>;

/** What a method selection writes on a pending link: the method's rate, the repriced amounts, the provider's payment. */
export interface LinkSelection {
  feeBps: number;
  payerAmount: number;
  merchantCredit: number;
  platformRevenue: number;
  gatewayProvider: string;
  gatewayPaymentId: string;
  toCurrency: string;
  network: string;
  depositAddress: string;
  payerCurrency: string;
  payerCryptoAmount: string | null;
  qr: string;
}

/** A provider's verdict, and which of its payments it names (stamped on a link settled with no selection). */
export interface Settlement {
  to: 'paid' | 'failed';
  /** Why, for `failed`; null for `paid`. */
  failureReason: FailureReason | null;
  gatewayProvider: string;
  gatewayPaymentId: string;
  /** When the payment was settled: the link's `paid_at` (and the event's) when paid. */
  at: Date;
}

/** An event to publish, written in the same transaction as the state change it reports. */
export interface OutboxEntry {
  /** The event id: the outbox row's key, the payload's event_id and the `event-id` header. */
  id: string;
  topic: string;
  /** Kafka message key: the payment link id, so one link's events stay in one partition, in order. */
  key: string;
  payload: unknown;
  headers: Record<string, string>;
}

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
