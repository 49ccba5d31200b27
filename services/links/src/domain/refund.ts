import type { RefundStatus } from '@pl/contracts';
import type { LinkCursor } from './cursor';
import type { LinkRecord, OutboxEntry } from './link';
import type { IdempotencyKeyRef, LinkDeps, LinkScope, ModeReach } from './ports';
import type { PaymentProvider } from '@pl/providers';

/** A refund as the domain holds it: money in integer kopecks, dates as instants. */
export interface RefundRecord {
  id: string;
  paymentLinkId: string;
  merchantId: string;
  shopId: number;
  livemode: boolean;
  amount: number;
  status: RefundStatus;
  reason: string | null;
  destination: string | null;
  provider: string;
  gatewayRefundId: string | null;
  failureReason: string | null;
  latePaymentId: string | null;
  createdAt: Date;
  createdAtMicros: bigint;
  updatedAt: Date;
}

/** What a merchant asked to give back, already judged against the link as read (destination, method). */
export interface RefundRequestOf {
  id: string;
  link: LinkRecord;
  /** Kopecks; null = all that is refundable when the link's row is locked. */
  amount: number | null;
  reason: string | null;
  destination: string | null;
  provider: PaymentProvider;
  /** Present when the request carried an Idempotency-Key: kept with the refund in its transaction. */
  key: IdempotencyKeyRef | null;
}

/** How a refund's transaction ended: created, or refused by the state it found under the link's lock. */
export type RefundCreation =
  | { kind: 'created'; refund: RefundRecord }
  /** Another request holds the key (it committed): answer with its kept refund. */
  | { kind: 'key_taken' }
  | { kind: 'not_paid'; status: string }
  | { kind: 'exceeds_refundable'; refundable: number }
  | { kind: 'insufficient_balance' };

/** Which refund a settle names: a provider's id from its callback, or ours from the operator or the simulator. */
export type RefundTarget = { refundId: string } | { provider: string; gatewayRefundId: string };

export interface RefundVerdict {
  status: 'succeeded' | 'failed';
  failureReason: string | null;
}

/** How a settle ended: moved now (with its event), or already final (same status: a harmless repeat). */
export type RefundSettlement = { kind: 'settled'; refund: RefundRecord } | { kind: 'already_final'; refund: RefundRecord };

export interface RefundListQuery {
  scope: LinkScope;
  paymentLinkId: string | null;
  shopId: number | null;
  status: RefundStatus | null;
  after: LinkCursor | null;
  limit: number;
}

/** The refund kept under an Idempotency-Key, and which request it answered. */
export interface KeptRefund {
  fingerprint: string;
  refund: RefundRecord;
}

/**
 * Refunds in the links schema. Each move of money is one transaction: the link's refund sums under its row lock,
 * the refund row, the ledger posting (whose CHECK refuses a balance below zero) and, for a settle, the event.
 */
export interface RefundStore {
  /** Records the refund, pending and not yet handed to its provider (no gateway refund id), with its ledger posting. */
  create(request: RefundRequestOf): Promise<RefundCreation>;
  /** The provider accepted the refund under `gatewayRefundId`; null when it is recorded already (or unknown). */
  recordAcceptance(id: string, gatewayRefundId: string): Promise<RefundRecord | null>;
  /** Keeps the refund as it now stands as the answer under `key`, so a replay answers what the first request did. */
  keepAnswer(key: IdempotencyKeyRef, refundId: string): Promise<void>;
  findById(id: string, reach: ModeReach): Promise<RefundRecord | null>;
  list(query: RefundListQuery): Promise<RefundRecord[]>;
  findKept(scope: string, keySha256: string): Promise<KeptRefund | null>;
  /**
   * Settles a pending refund with `verdict`, moving the link's sums, posting and writing `eventOf(settled)`, all
   * in one transaction. A refund already final answers as it is, nothing written. Null when none is named so.
   */
  settle(target: RefundTarget, verdict: RefundVerdict, eventOf: (settled: RefundRecord) => OutboxEntry): Promise<RefundSettlement | null>;
}

export interface RefundDeps extends LinkDeps {
  refunds: RefundStore;
}
