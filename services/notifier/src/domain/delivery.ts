/** Webhook deliveries as the notifier holds them, and the ports its use cases and worker need. */

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface AttemptRecord {
  series: number;
  attempt: number;
  at: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

export interface DeliveryRecord {
  id: string;
  /** Insertion order: the delivery log lists newest first and pages by it. */
  seq: bigint;
  webhookId: string;
  event: 'payment.succeeded';
  merchantId: string;
  shopId: number;
  paymentLinkId: string;
  status: DeliveryStatus;
  series: number;
  attemptsMade: number;
  attempts: AttemptRecord[];
}

/** A delivery a worker holds a lease on, ready for its next attempt. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  event: string;
  shopId: number;
  body: Buffer;
  series: number;
  /** The number of the attempt about to go out (1..8). */
  attempt: number;
  leaseToken: string;
  /** W3C trace context stored with the delivery (the payment's trace), so each attempt joins it. */
  traceparent: string | null;
}

/** What one HTTP attempt came to. */
export interface AttemptResult {
  at: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  /** First 4 KiB of the response body. */
  responseHead: Buffer | null;
  ok: boolean;
  /** A time-out or a 429. */
  throttled: boolean;
  retryAfterMs: number | null;
}

/** Where the next attempt stands after one: another at `nextAttemptAt`, or the end of the series. */
export type AttemptVerdict = { status: 'pending'; nextAttemptAt: Date } | { status: 'succeeded' | 'failed' };

export interface ListPage {
  items: DeliveryRecord[];
  hasMore: boolean;
}

export interface ListFilter {
  merchantId: string;
  shopId: number | null;
  paymentLinkId: string | null;
  beforeSeq: bigint | null;
  limit: number;
}

/** Storage behind the merchants' delivery log. */
export interface DeliveryStore {
  findById(id: string): Promise<DeliveryRecord | null>;
  /** The merchant and shop a link's deliveries belong to; null when the link has none. */
  linkOwner(paymentLinkId: string): Promise<{ merchantId: string; shopId: number } | null>;
  list(filter: ListFilter): Promise<ListPage>;
  /** Starts a new series of attempts at once (numbered from 1, same webhook id). */
  restartSeries(id: string): Promise<void>;
}

export interface ClaimOptions {
  limit: number;
  /** Shops whose endpoint is saturated in this process: their deliveries wait. */
  excludeShops: number[];
  leaseMs: number;
  /** Picks, from the due rows locked for this claim, the ones this worker will take. */
  choose: (due: Array<{ id: string; shopId: number }>) => string[];
}

/** Storage behind the delivery worker. */
export interface DeliveryQueue {
  claimDue(options: ClaimOptions): Promise<ClaimedDelivery[]>;
  /** Records an attempt and, while the claim still holds, moves the delivery on. */
  recordAttempt(claim: ClaimedDelivery, endpoint: string | null, result: AttemptResult, verdict: AttemptVerdict): Promise<void>;
  /** Hands a claim back without an attempt, due again no sooner than `retryInMs` from now. */
  release(claim: ClaimedDelivery, retryInMs: number): Promise<void>;
  /** Makes the waiting deliveries that failed at `endpoint` due now; returns how many. */
  bringForward(endpoint: string): Promise<number>;
}

/** The webhook target of a shop, asked for at send time; the secret is never stored or logged. */
export interface WebhookTargetSource {
  targetOf(shopId: number): Promise<{ url: string | null; secret: string | null }>;
}

/** Sends one HTTP attempt; never throws (every failure is an AttemptResult). */
export interface WebhookSender {
  send(url: string, headers: Record<string, string>, body: Buffer, traceparent: string | null): Promise<AttemptResult>;
}
