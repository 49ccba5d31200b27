import type { Identity, LinkStatus, Mode, ShopView } from '@pl/contracts';
import type { ProviderRegistry } from '@pl/providers';
import type { AttemptStore } from './attempt';
import type { FinalStatus, LinkRecord, NewLink, OutboxEntry, Settlement, UnresolvedPayment, UnresolvedReason, UnresolvedRecording } from './link';
import type { LinkCursor } from './cursor';

/**
 * Who may touch a link: always one merchant in one mode, and one shop for a cashier key. A link of the other mode
 * is outside the scope, so the store answers as if it did not exist (docs/test-mode.md: "two separate worlds").
 */
export interface LinkScope {
  merchantId: string;
  shopId?: number;
  mode: Mode;
}

declare const ownMode: unique symbol;

/**
 * The mode of a call that reaches a link by its id, its payment or its due time rather than as a merchant: a buyer,
 * a provider's callback, the simulator, the sweeper. It acts in the link's own mode, whichever that is, and says
 * so by naming {@link LINKS_OWN_MODE}, since every store call must name a mode.
 */
export interface LinksOwnMode {
  readonly [ownMode]: true;
}
// Branded, so no object literal passes for it: only this one value says "the link's own mode".
export const LINKS_OWN_MODE = Object.freeze({}) as LinksOwnMode;
export const isLinksOwnMode = (reach: object): reach is LinksOwnMode => reach === LINKS_OWN_MODE;

/** The mode a read of one link is confined to: a merchant's (its scope's, or just the mode), or the link's own. */
export type ModeReach = { mode: Mode } | LinksOwnMode;

/** The links a move may touch: a merchant's scope, or any link in its own mode. */
export type LinkReach = LinkScope | LinksOwnMode;

export interface LinkListQuery {
  scope: LinkScope;
  status: LinkStatus | null;
  shopId: number | null;
  orderId: string | null;
  /** Start strictly after this position in (created_at desc, id desc) order. */
  after: LinkCursor | null;
  limit: number;
}

/**
 * A link of a list page: what the list decides on (a due link, the cursor) and the payment-link object of the
 * interface as JSON text, byte for byte what `JSON.stringify(toPaymentLink(link))` writes.
 */
export interface ListedLink {
  id: string;
  status: LinkStatus;
  expiresAt: Date;
  createdAtMicros: bigint;
  json: string;
}

/** Payment-link state. Every status move is a conditional update, so concurrent moves cannot both win. */
export interface LinkStore {
  insert(link: NewLink): Promise<LinkRecord>;
  /** The link, or null when there is none in `reach`'s mode. */
  findById(id: string, reach: ModeReach): Promise<LinkRecord | null>;
  /** A page of links in list order, each with its interface JSON; the checkout URLs start with `publicBaseUrl`. */
  list(query: LinkListQuery, publicBaseUrl: string): Promise<readonly ListedLink[]>;
  /**
   * Moves a `pending` link to `to` and returns it, or null when the link is not pending, is outside
   * the reach, or the move's own time rule fails (only a due link expires; a due link cannot be canceled).
   */
  transition(id: string, to: FinalStatus, reach: LinkReach): Promise<LinkRecord | null>;
  /** Expires every due pending link of a merchant in the scope's mode; returns how many moved. */
  expireDue(scope: LinkScope): Promise<number>;
  /**
   * The link a provider's payment names: the one that stored that payment at selection, else the link
   * `linkId` (the provider's own derivation) if it stored no payment at all.
   */
  findForPayment(provider: string, gatewayPaymentId: string, linkId: string | null, reach: LinksOwnMode): Promise<LinkRecord | null>;
  /**
   * Moves `link` from pending to the provider's verdict, with `event` (for `paid`) in the outbox, atomically.
   * Null, and nothing written, when the link is no longer pending or no longer as read (a new selection
   * changed what the event reports).
   */
  settle(link: LinkRecord, settlement: Settlement, event: OutboxEntry | null): Promise<LinkRecord | null>;
}

/** What an `Idempotency-Key` binds an operation to, as this service keeps it. */
export interface IdempotencyKeyRef {
  /** Merchant (and shop, for a cashier key) and route: `idempotencyScope` of the verified identity. */
  scope: string;
  keySha256: string;
  /** SHA-256 of what the request asked for. */
  fingerprint: string;
}

/** The answer kept under a key: which request it answered and the link as that answer showed it. */
export interface KeptAnswer {
  fingerprint: string;
  link: LinkRecord;
}

/**
 * Idempotency-Key records, each written in the same statement as the create or cancel it answers, so a link
 * never exists without the key that made it, nor a key without its link. A write whose key another request
 * holds writes nothing and answers `key_taken` (after that request committed): read its kept answer instead.
 */
export interface IdempotencyRecords {
  find(scope: string, keySha256: string): Promise<KeptAnswer | null>;
  insertLink(link: NewLink, key: IdempotencyKeyRef): Promise<LinkRecord | 'key_taken'>;
  /** As {@link LinkStore.transition} to `canceled`, recording the key with the move. */
  cancel(id: string, scope: LinkScope, key: IdempotencyKeyRef): Promise<LinkRecord | 'key_taken' | null>;
}

/**
 * Payments confirmed for links that had already left `pending`, kept for an operator to refund or settle.
 * At most one record per provider payment.
 */
export interface UnresolvedBook {
  /**
   * Records the payment against its link as the link stands now, reading it in the same statement, with its event. The
   * new record, or null and nothing written: the link is still pending, or this (payment, reason) is recorded already.
   */
  record(payment: UnresolvedRecording['payment'], eventOf: UnresolvedRecording['eventOf'], reach: LinksOwnMode): Promise<UnresolvedPayment | null>;
  /** Every late payment received at or after `since` (all when null), oldest first, of both modes: the operator's list. */
  list(since: Date | null): Promise<UnresolvedPayment[]>;
}

/** A page of unresolved payments: each filter null when not asked for; `before` the keyset of the last one shown. */
export interface UnresolvedFilter {
  merchantId: string | null;
  livemode: boolean | null;
  shopId: number | null;
  reason: UnresolvedReason | null;
  status: 'unresolved' | 'settled' | 'refunded' | null;
  before: { receivedAt: Date; id: string } | null;
  limit: number;
}

/** Shops as a caller may see them: unknown is not_found, another merchant's (or another shop than a cashier key's) is forbidden. */
export interface ShopDirectory {
  getShop(shopId: number, identity: Identity): Promise<ShopView>;
}

/** A step of a payment where the crash tests (tests/faults/sigkill-payment-steps.test.ts) may stop this service. */
export type LinksCrashPoint =
  /** A payment's move to paid (and its outbox row) committed, the reply not yet sent. */
  | 'links.after-settle-commit'
  /** An outbox batch acknowledged by Kafka, not yet marked published. */
  | 'links.after-publish-before-mark'
  /** A provider made an attempt's payment (its create answered), the answer not yet recorded. */
  | 'links.after-create-before-record'
  /** A refund and its posting committed, its provider not yet called. */
  | 'links.after-refund-commit'
  /** A crypto payout marked processing (committed), its create not yet sent to Heleket. */
  | 'links.after-payout-processing'
  /** Heleket answered a crypto payout's create (it made the payout), the answer not yet recorded. */
  | 'links.after-payout-create-before-record';

/**
 * Told each time a payment passes one of those steps. Every deployment runs {@link NO_CRASH_POINTS}; only the
 * crash tests' configuration makes the main wire one that acts (it kills the process there).
 */
export interface CrashPoints {
  reached(point: LinksCrashPoint): void;
}

export const NO_CRASH_POINTS: CrashPoints = { reached: () => undefined };

export interface LinkDeps {
  links: LinkStore;
  unresolvedPayments: UnresolvedBook;
  idempotency: IdempotencyRecords;
  shops: ShopDirectory;
  /** Application clock, used only to decide whether to try expiring a link on read. */
  now: () => Date;
  newId: () => string;
  providers: ProviderRegistry;
  /** Deadline of one provider call (`PROVIDER_REQUEST_TIMEOUT_MS`). */
  providerTimeoutMs: number;
  /** Each select of a link at its provider. */
  attempts: AttemptStore;
  /** A warning for operators (a provider call that failed where nothing waits for it). */
  warn: (fields: Record<string, unknown>, message: string) => void;
  /** Kafka topic of payment events. */
  eventsTopic: string;
  /** The crash tests' hook; none (a no-op) unless the service was started with one. */
  crashPoints?: CrashPoints;
}
