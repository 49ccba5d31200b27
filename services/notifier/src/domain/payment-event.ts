import { modeOfLivemode, publicEventId, type EventType, type PlatformEvent } from '@pl/contracts';
import type { ClaimedDelivery } from './delivery';

/**
 * The public body of an event (contracts `webhookEvent`), serialized once when the event arrives: its webhook sends
 * these exact bytes on every attempt (signatures are over them) and the events API reads them back. `data` keeps
 * its schema's field order (the contract's payload table for link events); `livemode` before `data`, so a
 * receiver can tell a test event before it reads the data.
 */
function toEventBody(event: PlatformEvent): Buffer {
  return Buffer.from(
    JSON.stringify({
      event: event.event,
      event_id: publicEventId(event.event_id),
      created_at: event.occurred_at,
      livemode: event.livemode,
      data: event.data,
    }),
    'utf8',
  );
}

/** The shop and link an event is about: every event's data names its shop; all but a payout's name a link. */
const subjectOf = (event: PlatformEvent): { shopId: number; paymentLinkId: string | null } => ({
  shopId: event.data.shop_id,
  paymentLinkId: 'payment_link_id' in event.data ? event.data.payment_link_id : null,
});

export interface NewDelivery {
  id: string;
  eventId: string;
  webhookId: string;
  event: EventType;
  merchantId: string;
  shopId: number;
  /** Null for a payout's event. */
  paymentLinkId: string | null;
  /** The event's mode (a test link's payment is false): the delivery is logged in that mode only. */
  livemode: boolean;
  body: Buffer;
  /** W3C trace context of the message's consumer span: the delivery's attempts continue that trace. */
  traceparent: string | null;
  /** Stored already leased to a worker that has a slot for it (its first attempt goes out at once), or due. */
  claim: { leaseToken: string; leaseMs: number } | null;
}

/** An event as it came off the log, with the trace context it is handled in. */
export interface ReceivedPaymentEvent {
  event: PlatformEvent;
  traceparent: string | null;
}

/** An event as the inbox records it (for the events API), with its delivery when its shop is subscribed to it. */
export interface InboxEvent {
  event: PlatformEvent;
  shopId: number;
  paymentLinkId: string | null;
  /** The public body's bytes (see {@link toEventBody}); the delivery, if any, sends the same. */
  body: Buffer;
  delivery: NewDelivery | null;
}

/** Where received events go: each recorded, with its delivery if it has one, atomically, once per event id. */
export interface EventInbox {
  /**
   * Records the new events of a slice with their deliveries, all or nothing; events already taken in
   * (Kafka is at-least-once) are skipped. Returns the ids of the deliveries it created.
   */
  storeAll(items: readonly InboxEvent[]): Promise<Set<string>>;
}

/** The event types each shop is sent (its `webhook_events`, read through short-lived copies of its webhook target). */
export interface EventSubscriptions {
  eventsOf(shopId: number): Promise<readonly EventType[]>;
}

/**
 * Slots of the delivery worker for deliveries about to be stored, so that those it has room for are stored
 * already claimed and sent at once, without a claim query on the payment's path.
 */
export interface FreshDeliverySlots {
  /** Per shop (an entry each), a claim if a slot was reserved for its delivery, else null (stored due). */
  reserveFresh(shopIds: readonly number[]): ({ leaseToken: string; leaseMs: number } | null)[];
  /**
   * Ends the reservations of `reserveFresh` (same order): a stored claimed delivery starts its attempt, an
   * entry with null (not stored: a repeat, or the store failed) gives its slot back.
   */
  startFresh(reserved: readonly ({ leaseToken: string; leaseMs: number } | null)[], stored: readonly (ClaimedDelivery | null)[]): void;
}

/** What taking a slice in came to. */
export interface Accepted {
  /** Deliveries created. */
  stored: number;
  /** Of them, how many wait to be claimed (no slot was free): the worker should look. */
  due: number;
}

const NO_SLOTS: FreshDeliverySlots = {
  reserveFresh: (shopIds) => shopIds.map(() => null),
  startFresh: () => undefined,
};

const claimOf = (d: NewDelivery, leaseToken: string): ClaimedDelivery => ({
  id: d.id,
  webhookId: d.webhookId,
  event: d.event,
  shopId: d.shopId,
  body: d.body,
  series: 1,
  attempt: 1,
  leaseToken,
  traceparent: d.traceparent,
  mode: modeOfLivemode(d.livemode),
});

/**
 * Takes a slice of events in: every one is recorded once per event id (an event that comes twice in one slice is
 * stored once), and those the shop is subscribed to get their delivery in the same statement. A failed look-up of
 * a subscription throws, so the slice comes again. Deliveries the worker has slots for are stored claimed and
 * started as soon as they are stored.
 */
export async function acceptEvents(
  inbox: EventInbox,
  subscriptions: EventSubscriptions,
  received: readonly ReceivedPaymentEvent[],
  newId: () => string,
  slots: FreshDeliverySlots = NO_SLOTS,
): Promise<Accepted> {
  const seen = new Set<string>();
  const events: ReceivedPaymentEvent[] = [];
  for (const r of received) {
    if (seen.has(r.event.event_id)) continue;
    seen.add(r.event.event_id);
    events.push(r);
  }
  if (events.length === 0) return { stored: 0, due: 0 };
  // One look-up per shop of the slice, side by side (each usually answered from the copies).
  const shopIds = [...new Set(events.map((e) => subjectOf(e.event).shopId))];
  const subscribed = new Map(await Promise.all(shopIds.map(async (id) => [id, new Set(await subscriptions.eventsOf(id))] as const)));
  const sent = events.filter((e) => subscribed.get(subjectOf(e.event).shopId)?.has(e.event.event) === true);
  const reserved = slots.reserveFresh(sent.map((e) => subjectOf(e.event).shopId));
  const claimFor = new Map(sent.map((e, i) => [e, reserved[i] ?? null]));
  const items: InboxEvent[] = events.map((r) => {
    const { event, traceparent } = r;
    const { shopId, paymentLinkId } = subjectOf(event);
    const body = toEventBody(event);
    const claim = claimFor.get(r);
    return {
      event,
      shopId,
      paymentLinkId,
      body,
      delivery:
        claim === undefined
          ? null
          : {
              id: newId(),
              eventId: event.event_id,
              webhookId: publicEventId(event.event_id),
              event: event.event,
              merchantId: event.merchant_id,
              shopId,
              paymentLinkId,
              livemode: event.livemode,
              body,
              traceparent,
              claim,
            },
    };
  });
  const deliveries = items.flatMap((i) => (i.delivery ? [i.delivery] : []));
  let created = new Set<string>();
  try {
    created = await inbox.storeAll(items);
  } finally {
    slots.startFresh(
      reserved,
      deliveries.map((d) => (d.claim && created.has(d.id) ? claimOf(d, d.claim.leaseToken) : null)),
    );
  }
  const stored = deliveries.filter((d) => created.has(d.id));
  return { stored: stored.length, due: stored.filter((d) => d.claim === null).length };
}
