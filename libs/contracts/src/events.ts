import { z } from 'zod';
import { moneyText, moscowDate, positiveId, uuid } from './fields';

/** Kafka topic of payment events; the key of every message is the payment link id. */
export const PAYMENT_EVENTS_TOPIC = 'payment-events';

/** `payment.succeeded` as it travels through Kafka: the webhook payload plus routing facts. No secrets. */
export const paymentSucceededEvent = z.object({
  event_id: uuid,
  event: z.literal('payment.succeeded'),
  occurred_at: moscowDate,
  merchant_id: uuid,
  /**
   * false for a test link's event. Events written before test mode carry none and were all live: the default
   * keeps them readable while they drain.
   */
  livemode: z.boolean().default(true),
  data: z.object({
    payment_link_id: uuid,
    id: uuid,
    shop_id: positiveId,
    order_id: z.string().nullable(),
    amount: moneyText,
    merchant_credit: moneyText,
    status: z.literal('paid'),
    paid_at: moscowDate,
  }),
});
export type PaymentSucceededEvent = z.infer<typeof paymentSucceededEvent>;

/**
 * Kafka headers of every payment event: its id (the same as the payload's `event_id`, so a consumer can dedupe
 * before parsing), its type and the payload's content type. Trace context travels beside them (`traceparent`).
 */
export const EVENT_ID_HEADER = 'event-id';
export const EVENT_TYPE_HEADER = 'event-type';
export const CONTENT_TYPE_HEADER = 'content-type';

/** The headers a payment event is published with. */
export const paymentEventHeaders = (event: PaymentSucceededEvent): Record<string, string> => ({
  [EVENT_ID_HEADER]: event.event_id,
  [EVENT_TYPE_HEADER]: event.event,
  [CONTENT_TYPE_HEADER]: 'application/json',
});
