import { modeOfLivemode, type PaymentSucceededEvent } from '@pl/contracts';
import type { ClaimedDelivery } from './delivery';

/** Stable across attempts and resends: receivers deduplicate by it. */
const webhookIdFor = (eventId: string): string => `whk_${eventId}`;

/**
 * The webhook body, serialized once when the event arrives; these exact bytes go out on every attempt
 * (signatures are over them). Fields in the order of the interface's payload table; `livemode` right after
 * `event` (test-mode.md), so a receiver can tell a test payment before it reads the data.
 */
function toWebhookBody(event: PaymentSucceededEvent): Buffer {
  const d = event.data;
  return Buffer.from(
    JSON.stringify({
      event: event.event,
      livemode: event.livemode,
      data: {
        payment_link_id: d.payment_link_id,
        id: d.id,
        shop_id: d.shop_id,
        order_id: d.order_id,
        amount: d.amount,
        merchant_credit: d.merchant_credit,
        status: d.status,
        paid_at: d.paid_at,
      },
    }),
    'utf8',
  );
}

export interface NewDelivery {
  id: string;
  eventId: string;
  webhookId: string;
  event: 'payment.succeeded';
  merchantId: string;
  shopId: number;
  paymentLinkId: string;
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
  event: PaymentSucceededEvent;
  traceparent: string | null;
}

/** Where received events go: each stored with its delivery, atomically, once per event id. */
export interface EventInbox {
  /**
   * Stores the new events of a slice with their deliveries, all or nothing; events already taken in
   * (Kafka is at-least-once) are skipped. Returns the ids of the deliveries it created.
   */
  storeAll(items: readonly { event: PaymentSucceededEvent; delivery: NewDelivery }[]): Promise<Set<string>>;
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
 * Takes a slice of payment events in: their deliveries exist once this resolves, one per event id (an
 * event that comes twice in one slice is stored once). Deliveries the worker has slots for are stored
 * claimed and started as soon as they are stored.
 */
export async function acceptPaymentEvents(
  inbox: EventInbox,
  received: readonly ReceivedPaymentEvent[],
  newId: () => string,
  slots: FreshDeliverySlots = NO_SLOTS,
): Promise<Accepted> {
  const seen = new Set<string>();
  const events: { event: PaymentSucceededEvent; traceparent: string | null }[] = [];
  for (const r of received) {
    if (seen.has(r.event.event_id)) continue;
    seen.add(r.event.event_id);
    events.push(r);
  }
  if (events.length === 0) return { stored: 0, due: 0 };
  const reserved = slots.reserveFresh(events.map((e) => e.event.data.shop_id));
  const items = events.map(({ event, traceparent }, i) => ({
    event,
    delivery: {
      id: newId(),
      eventId: event.event_id,
      webhookId: webhookIdFor(event.event_id),
      event: event.event,
      merchantId: event.merchant_id,
      shopId: event.data.shop_id,
      paymentLinkId: event.data.payment_link_id,
      livemode: event.livemode,
      body: toWebhookBody(event),
      traceparent,
      claim: reserved[i] ?? null,
    } satisfies NewDelivery,
  }));
  let created = new Set<string>();
  try {
    created = await inbox.storeAll(items);
  } finally {
    slots.startFresh(
      reserved,
      items.map(({ delivery: d }) => (d.claim && created.has(d.id) ? claimOf(d, d.claim.leaseToken) : null)),
    );
  }
  const stored = items.filter((i) => created.has(i.delivery.id));
  return { stored: stored.length, due: stored.filter((i) => i.delivery.claim === null).length };
}
