/** Webhook deliveries as the notifier holds them, and the ports its use cases and worker need. */
import type { EventType, MerchantIdentity, Mode } from '@pl/contracts';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
/** What a webhook announces: an event (docs/webhooks.md, "Event types"), or a merchant's test of its webhook address. */
export type DeliveryEvent = EventType | 'webhook.test';

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
  event: DeliveryEvent;
  merchantId: string;
  shopId: number;
  /** Null for a `webhook.test` delivery, which belongs to no link. */
  paymentLinkId: string | null;
  /** The mode of the event (docs/test-mode.md): only a caller of the same mode reads or resends the delivery. */
  livemode: boolean;
  status: DeliveryStatus;
  series: number;
  attemptsMade: number;
  /** The newest attempts of every series, oldest first: at most as many as the store was asked for. */
  attempts: AttemptRecord[];
  /** How many older attempts `attempts` leaves out. */
  attemptsOmitted: number;
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
  /** Labels the attempt's metrics, span and log line, so test traffic can be told from live money. */
  mode: Mode;
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
  /**
   * The caller's mode: a merchant's list holds only the deliveries of its own mode. Null (both modes) is for
   * operators only (the admin CLI), who see each delivery's `livemode`.
   */
  mode: Mode | null;
  merchantId: string;
  shopId: number | null;
  paymentLinkId: string | null;
  status: DeliveryStatus | null;
  beforeSeq: bigint | null;
  limit: number;
  /** Most attempts read per delivery (the newest). */
  attemptsShown: number;
}

/**
 * Storage behind the merchants' delivery log. Every call names the caller's mode, and a delivery of the other
 * mode is not there for it (docs/test-mode.md: cross-mode access answers as if the object did not exist), whatever
 * the use case does next.
 */
export interface DeliveryStore {
  /** The delivery of `mode` with its newest `attemptsShown` attempts. */
  findById(mode: Mode, id: string, attemptsShown: number): Promise<DeliveryRecord | null>;
  /** The merchant and shop a link's deliveries of `mode` belong to; null when the link has none in that mode. */
  linkOwner(mode: Mode, paymentLinkId: string): Promise<{ merchantId: string; shopId: number } | null>;
  list(filter: ListFilter & { mode: Mode }): Promise<ListPage>;
  /** Starts a new series of attempts of a delivery of `mode` at once (numbered from 1, same webhook id). */
  restartSeries(mode: Mode, id: string): Promise<void>;
  /** Stores a `webhook.test` delivery, due at once. */
  addTestDelivery(delivery: NewTestDelivery): Promise<void>;
}

/** A `webhook.test` delivery: no link and no Kafka event behind it; its body is serialized once, like any other. */
export interface NewTestDelivery {
  id: string;
  webhookId: string;
  merchantId: string;
  shopId: number;
  /** The caller's mode: a test sent with a test credential is logged among the test deliveries. */
  mode: Mode;
  body: Buffer;
}

/** Shops and links as the caller may see them, asked of their services with the caller's own identity. */
export interface ShopDirectory {
  /** Throws not_found for an unknown shop and forbidden for one the caller may not see. */
  shopFor(identity: MerchantIdentity, shopId: number): Promise<{ merchantId: string; webhookUrl: string | null }>;
  /** Throws not_found for an unknown link (or one of the other mode) and forbidden for one the caller may not see. */
  linkFor(identity: MerchantIdentity, linkId: string): Promise<void>;
}

/** Slots this process has left at one endpoint (URL), and the shops it knows to send there. */
export interface EndpointRoom {
  shopIds: number[];
  room: number;
}

export interface ClaimOptions {
  /** Most deliveries to claim: the process's free slots. */
  limit: number;
  /** Shops whose endpoint is saturated in this process: their deliveries wait (and are not even read). */
  excludeShops: number[];
  /** The endpoints this process sends to: at most `room` of the deliveries of their shops together. */
  endpoints: EndpointRoom[];
  /** At most this many deliveries of a shop whose endpoint this process does not know yet. */
  perEndpoint: number;
  leaseMs: number;
}

export interface Claim {
  claims: ClaimedDelivery[];
  /** Due deliveries the claim looked at: more than it took means some wait for a slot. */
  seen: number;
}

/** Storage behind the delivery worker. */
export interface DeliveryQueue {
  /**
   * Leases due deliveries, oldest due first, within the bounds of `options`; rows another worker is
   * claiming at the same moment are skipped, so each goes to one worker.
   */
  claimDue(options: ClaimOptions): Promise<Claim>;
  /**
   * Records an attempt and, while the claim still holds, moves the delivery on. After a successful attempt
   * the deliveries waiting after failures at the same endpoint are made due now (bring-forward); returns how many.
   */
  recordAttempt(claim: ClaimedDelivery, endpoint: string | null, result: AttemptResult, verdict: AttemptVerdict): Promise<number>;
  /** Hands a claim back without an attempt, due again `retryInMs` from now. */
  release(claim: ClaimedDelivery, retryInMs: number): Promise<void>;
}

/** Where a shop's webhooks go and the secret they are signed with (null: none set, or the shop is gone). */
export interface WebhookTarget {
  url: string | null;
  secret: string | null;
  /** The secret before the latest rotation while its overlap lasts (null otherwise): attempts carry both signatures. */
  previousSecret: string | null;
  /** The event types the shop is sent: an event of another type is recorded and gets no delivery. */
  webhookEvents: readonly EventType[];
}

/** The webhook target of a shop, asked for at send time; the secret is never stored in the database or logged. */
export interface WebhookTargetSource {
  targetOf(shopId: number): Promise<WebhookTarget>;
}

/** Sends one HTTP attempt; never throws (every failure is an AttemptResult). */
export interface WebhookSender {
  send(url: string, headers: Record<string, string>, body: Buffer, context: AttemptContext): Promise<AttemptResult>;
}

/** What an attempt is traced and counted under. */
export interface AttemptContext {
  /** W3C trace context the attempt's span continues (null: a new trace). */
  traceparent: string | null;
  mode: Mode;
}
