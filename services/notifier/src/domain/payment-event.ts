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
}

/** Where received events go: stored with their delivery in one transaction, once per event id. */
export interface EventInbox {
  /** True when the event was new (and its delivery created); false for a redelivered event. */
  store(event: PaymentSucceededEvent, delivery: NewDelivery): Promise<boolean>;
}

/** Takes a payment event in: its delivery exists once this resolves, and only one per event id. */
export async function acceptPaymentEvent(inbox: EventInbox, event: PaymentSucceededEvent, newId: () => string): Promise<boolean> {
  return inbox.store(event, {
    id: newId(),
    eventId: event.event_id,
    webhookId: webhookIdFor(event.event_id),
    event: event.event,
    merchantId: event.merchant_id,
    shopId: event.data.shop_id,
    paymentLinkId: event.data.payment_link_id,
    body: toWebhookBody(event),
  });
}
