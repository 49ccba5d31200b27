import type { LinkStatus } from '@pl/contracts';
import type { AttemptState } from './attempt';

/** An attempt as status sync reads it: what names it at its provider, what it asked, and where its link stands. */
export interface SyncAttempt {
  linkId: string;
  n: number;
  orderId: string;
  provider: string;
  state: AttemptState;
  /** Null while its provider never answered the create (outcome unknown, or the service died before recording it). */
  gatewayPaymentId: string | null;
  /** What the attempt asked, in kopecks: a payment for less or more is judged against it. */
  payerAmount: number;
  linkStatus: LinkStatus;
  linkExpiresAt: Date;
  providerCanceledAt: Date | null;
  createdAt: Date;
}

/** A refund pending at a real provider, as status sync reads it. */
export interface SyncRefund {
  id: string;
  paymentLinkId: string;
  provider: string;
  amount: number;
  destination: string | null;
  reason: string | null;
  /** Null while its provider never answered (no answer, or the service died before or during the call). */
  gatewayRefundId: string | null;
  /** The link's payment as the refund names it at the provider. */
  linkAmount: number;
  linkGatewayPaymentId: string | null;
  linkExpiresAt: Date;
  /** How many other refunds the link has (a provider that names no refund of ours cannot tell them apart). */
  otherRefunds: number;
  /** The order id of the attempt that paid the link (`<link id>-<n>`), or the link id when none did. */
  orderId: string;
  createdAt: Date;
}

/** How often sync reads: first `firstDelayMs` after a row was made, then every `intervalMs`. */
export interface SyncSchedule {
  firstDelayMs: number;
  intervalMs: number;
}

/** Hours past its link's expiry after which an unfinished attempt or refund is no longer read. */
export const SYNC_HORIZON_HOURS = 72;

/**
 * Status sync's statements (StatusSyncRepository in production). Claims are single statements that move the row's
 * next read one interval on under `FOR UPDATE SKIP LOCKED`, so replicas never read one row at once, and no lock is
 * held while its provider is called.
 */
export interface StatusSyncStore {
  /** Up to `limit` due attempts at real providers, each claimed until one interval from now. */
  claimDueAttempts(schedule: SyncSchedule, limit: number): Promise<SyncAttempt[]>;
  /** Up to `limit` due refunds pending at real providers, each claimed until one interval from now. */
  claimDueRefunds(schedule: SyncSchedule, limit: number): Promise<SyncRefund[]>;
  /** Every attempt of a link at a real provider that sync would read, and its refunds pending at one (the operator's sync). */
  attemptsOfLink(linkId: string): Promise<SyncAttempt[]>;
  pendingRefundsOfLink(linkId: string): Promise<SyncRefund[]>;
  /** The provider answered a read: stamped, and, when `done`, never read again. */
  attemptRead(attempt: SyncAttempt, done: boolean): Promise<void>;
  refundRead(refund: SyncRefund, done: boolean): Promise<void>;
  /** An attempt whose create answer was never recorded, found at its provider by its order id. */
  recordFoundPayment(attempt: SyncAttempt, gatewayPaymentId: string): Promise<void>;
  /**
   * The attempt ended with nothing paid while still unfinished here (its provider says so, or it can neither be read
   * nor paid): its state becomes `state`, and it is never read again.
   */
  endUnpaid(attempt: SyncAttempt, state: 'ended_unpaid' | 'failed' | 'unknown'): Promise<void>;
  /** Its provider confirmed the cancel of the unpaid attempt. */
  recordCanceled(attempt: SyncAttempt): Promise<void>;
  /** The attempt's state, its payment id and its link's status now. */
  stateOf(attempt: SyncAttempt): Promise<{ state: AttemptState; gatewayPaymentId: string | null; linkStatus: LinkStatus } | null>;
  /** The refund's status now. */
  refundStatusOf(refundId: string): Promise<string | null>;
}
