/** The events API (docs/webhooks.md, "Event types"): every recorded event of a merchant's shops, in the caller's mode. */
import {
  cursorBigint,
  cursorCodec,
  PUBLIC_EVENT_ID,
  webhookEvent,
  type EventType,
  type Identity,
  type ListEventsCommand,
  type Mode,
  type WebhookEvent,
  type WebhookEventPage,
} from '@pl/contracts';
import { forbidden, notFound } from '@pl/errors';
import type { ShopDirectory } from './delivery';
import { merchantOnly } from './delivery-log';
import { assertFiltersVisible, mayRead, type LinkOwners } from './list-filters';

/** An event as recorded: its owner (for the checks) and its public body's bytes. */
export interface EventRecord {
  eventId: string;
  seq: bigint;
  merchantId: string;
  shopId: number;
  /** Microseconds since the epoch (the database's precision). */
  occurredAtUs: bigint;
  body: Buffer;
}

/** Where a page starts: after the event at this (occurred_at, seq), newest first. */
interface EventPosition {
  occurredAtUs: bigint;
  seq: bigint;
}

export interface EventFilter {
  mode: Mode;
  merchantId: string;
  type: EventType | null;
  shopId: number | null;
  paymentLinkId: string | null;
  after: EventPosition | null;
  limit: number;
}

/**
 * The recorded events. Every call names the caller's mode: an event of the other mode is not there for it
 * (docs/test-mode.md), whatever the use case does next.
 */
export interface EventStore extends LinkOwners {
  list(filter: EventFilter): Promise<{ items: EventRecord[]; hasMore: boolean }>;
  findById(mode: Mode, eventId: string): Promise<EventRecord | null>;
}

/**
 * Opaque to clients: base64url of `v1:<occurred_at µs>:<seq>`, the position in the (occurred_at desc, seq desc)
 * order. The digit limits keep every value a cursor can carry within bigint.
 */
const eventCursor = cursorCodec<EventPosition>({ occurredAtUs: cursorBigint(17), seq: cursorBigint(18) });

/** The stored body, read back as the contract's item (it was serialized from a parsed event, so it parses). */
const toWebhookEvent = (record: EventRecord): WebhookEvent => webhookEvent.parse(JSON.parse(record.body.toString('utf8')));

/**
 * The caller's events of its own mode, newest first, optionally of one type, shop and link; subscribed or not. A
 * link or shop a filter names is judged as every list judges it ({@link assertFiltersVisible}): unknown (or a link of
 * the other mode) 404, another merchant's 403, with or without events.
 */
export async function listEvents(store: EventStore, shops: ShopDirectory, identity: Identity, cmd: ListEventsCommand): Promise<WebhookEventPage> {
  const merchant = merchantOnly(identity);
  const after = cmd.cursor === null ? null : eventCursor.decode(cmd.cursor);
  await assertFiltersVisible(store, shops, merchant, cmd);
  const page = await store.list({
    mode: merchant.mode,
    merchantId: merchant.merchant_id,
    type: cmd.type,
    shopId: cmd.shop_id ?? merchant.shop_id ?? null,
    paymentLinkId: cmd.payment_link_id,
    after,
    limit: cmd.limit,
  });
  const last = page.items.at(-1);
  return {
    events: page.items.map(toWebhookEvent),
    has_more: page.hasMore,
    next_cursor: page.hasMore && last ? eventCursor.encode({ occurredAtUs: last.occurredAtUs, seq: last.seq }) : null,
  };
}

/**
 * One event by its public id. Not found (a malformed id, an unknown one, one of the other mode) comes before
 * ownership, as docs/product-decisions.md orders the checks; another merchant's event (or a cashier's other shop's) is forbidden.
 */
export async function getEvent(store: EventStore, identity: Identity, publicId: string): Promise<WebhookEvent> {
  const merchant = merchantOnly(identity);
  if (!PUBLIC_EVENT_ID.test(publicId)) throw notFound('Event not found');
  const found = await store.findById(merchant.mode, publicId.slice('evt_'.length));
  if (!found) throw notFound('Event not found');
  if (!mayRead(merchant, found)) throw forbidden('Event belongs to another merchant');
  return toWebhookEvent(found);
}
