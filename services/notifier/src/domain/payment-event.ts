import type { PaymentSucceededEvent } from '@pl/contracts';

/** Stable across attempts and resends: receivers deduplicate by it. */
export const webhookIdFor = (eventId: string): string => `whk_${eventId}`;

/**
 * The webhook body, serialized once when the event arrives; these exact bytes go out on every attempt
 * (signatures are over them). Fields in the order of the interface's payload table.
 */
export function toWebhookBody(event: PaymentSucceededEvent): Buffer {
  const d = event.data;
  return Buffer.from(
    JSON.stringify({
      event: event.event,
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
  body: Buffer;
  /** W3C trace context of the message's consumer span: the delivery's attempts continue that trace. */
  traceparent: string | null;
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
   * (Kafka is at-least-once) are skipped. Returns how many were new.
   */
  storeAll(items: ReadonlyArray<{ event: PaymentSucceededEvent; delivery: NewDelivery }>): Promise<number>;
}

/**
 * Takes a slice of payment events in: their deliveries exist once this resolves, one per event id (an
 * event that comes twice in one slice is stored once). Returns how many deliveries were created.
 */
export async function acceptPaymentEvents(inbox: EventInbox, received: readonly ReceivedPaymentEvent[], newId: () => string): Promise<number> {
  const seen = new Set<string>();
  const items: Array<{ event: PaymentSucceededEvent; delivery: NewDelivery }> = [];
  for (const { event, traceparent } of received) {
    if (seen.has(event.event_id)) continue;
    seen.add(event.event_id);
    items.push({
      event,
      delivery: {
        id: newId(),
        eventId: event.event_id,
        webhookId: webhookIdFor(event.event_id),
        event: event.event,
        merchantId: event.merchant_id,
        shopId: event.data.shop_id,
        paymentLinkId: event.data.payment_link_id,
        body: toWebhookBody(event),
        traceparent,
      },
    });
  }
  return items.length === 0 ? 0 : inbox.storeAll(items);
}
