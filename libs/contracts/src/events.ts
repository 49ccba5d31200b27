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
