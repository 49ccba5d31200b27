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
  /**
   * Money the move leaves unresolved (an overpayment's surplus, an underpayment, an AML hold), recorded with its
   * `unresolved_payment.created` in the move's transaction; null when there is none.
   */
  unresolved?: UnresolvedRecording | null;
}

/** An unresolved payment to record, and its `unresolved_payment.created` event built from the record as written. */
export interface UnresolvedRecording {
  payment: ArrivedPayment;
  eventOf: (recorded: UnresolvedPayment) => OutboxEntry;
}

/** An event to publish, written in the same transaction as the state change it reports. */
export interface OutboxEntry {
  /** The event id: the outbox row's key, the payload's event_id and the `event-id` header. */
  id: string;
  topic: string;
  /** Kafka message key: the payment link id, so one link's events stay in one partition, in order. */
  key: string;
  payload: unknown;
  /**
   * The payload as JSON text already, when Postgres wrote it (the expiry sweep's events): published as it is, rather
   * than `payload` serialized again.
   */
  json?: string;
  headers: Record<string, string>;
}

/** Why money that arrived did not simply pay a pending link (docs/money.md, "Unresolved payments"). */
export type UnresolvedReason = 'late' | 'duplicate' | 'underpaid' | 'overpaid' | 'aml_hold';

/**
 * Money a provider reported for a link, as it arrived here: what an unresolved payment is recorded from, once per
 * (provider payment, reason). Amounts in kopecks.
 */
export interface ArrivedPayment {
  /** The record's id, should it become one. */
  id: string;
  linkId: string;
  reason: UnresolvedReason;
  provider: string;
  gatewayPaymentId: string;
  /** The paying attempt's provider order id (`<link id>-<n>`), null when no attempt is known (the sandbox's derived payments). */
  providerOrderId: string | null;
  /** What the payment's attempt (or link) asked of the buyer. */
  payerAmount: number;
  /** The RUB value that arrived (the surplus for overpaid), and what settling it credits and earns. */
  amount: number;
  merchantCredit: number;
  platformRevenue: number;
  payerCurrency: string | null;
  payerCryptoAmount: string | null;
  /** The crypto network the money came on (a refund goes back on it), null for SBP. */
  network: string | null;
  /** This service's clock when the callback reached it. */
  receivedAt: Date;
}

/**
 * Money that arrived but did not simply pay a pending link (a late payment is one, reason `late`): the link stayed as
 * the payment left it, and the merchant or an operator settles it to the shop or refunds it, once. Amounts in kopecks.
 */
export interface UnresolvedPayment {
  id: string;
  linkId: string;
  reason: UnresolvedReason;
  /** The link's state once the payment had arrived (an overpayment paid it, an underpayment or hold failed it). */
  linkStatus: LinkStatus;
  provider: string;
  gatewayPaymentId: string;
  providerOrderId: string | null;
  /** What the buyer was asked to pay, as its attempt (or the link) held it then. */
  payerAmount: number;
  /** The RUB that arrived (the surplus for overpaid): what a refund returns. */
  amount: number;
  /** What settling it credits the shop, and what the platform earns. */
  merchantCredit: number;
  platformRevenue: number;
  payerCurrency: string | null;
  payerCryptoAmount: string | null;
  network: string | null;
  /** How it was resolved (once), and when; null while it waits. A failed refund makes it null again. */
  resolution: 'settled' | 'refunded' | null;
  resolvedAt: Date | null;
  refundId: string | null;
  receivedAt: Date;
  /** Whose link it is, so the operator knows whom to talk to. */
  merchantId: string;
  shopId: number;
  orderId: string | null;
  /** The link's mode: a test one is no money to refund, though it is recorded the same way. */
  livemode: boolean;
}

/** Today's late payments are the unresolved payments of reason `late`; their commands and events keep the name. */
export type LatePayment = UnresolvedPayment;
