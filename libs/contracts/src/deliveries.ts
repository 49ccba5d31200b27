import { z } from 'zod';
import { moscowDate, pageQueryFields, uuid } from './fields';
import { EVENT_TYPES, eventType } from './events';

export const deliveryStatus = z.enum(['pending', 'succeeded', 'failed']);

/**
 * A delivery shows its newest attempts only, and counts the older ones in `attempts_omitted`: every resend adds
 * up to 8, and a full page of deliveries must still fit in one NATS message.
 */
export const DELIVERY_ATTEMPTS_SHOWN = 20;
/** An attempt's `error` is a short printable-ASCII description (our own words, or a system error code). */
export const ATTEMPT_ERROR_MAX_LENGTH = 120;

export const deliveryAttempt = z.object({
  attempt: z.number().int().min(1),
  at: moscowDate,
  status_code: z.number().int().nullable(),
  error: z.string().max(ATTEMPT_ERROR_MAX_LENGTH).nullable(),
  duration_ms: z.number().int().min(0),
});

/** A webhook delivery as merchants read it in the delivery log. */
export const webhookDelivery = z.object({
  id: uuid,
  webhook_id: z.string(),
  /** Null for a `webhook.test` delivery, which belongs to no link. */
  payment_link_id: uuid.nullable(),
  shop_id: z.number().int().min(1),
  event: z.enum([...EVENT_TYPES, 'webhook.test']),
  status: deliveryStatus,
  /** The newest {@link DELIVERY_ATTEMPTS_SHOWN} attempts of every series, oldest first. */
  attempts: z.array(deliveryAttempt).max(DELIVERY_ATTEMPTS_SHOWN),
  /** How many older attempts `attempts` leaves out (0 when it shows them all). */
  attempts_omitted: z.number().int().min(0),
  /** The mode of the event: each mode's delivery log shows only its own deliveries. */
  livemode: z.boolean(),
});
export type WebhookDelivery = z.infer<typeof webhookDelivery>;

export const webhookDeliveryList = z.object({
  deliveries: z.array(webhookDelivery),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});
export type WebhookDeliveryList = z.infer<typeof webhookDeliveryList>;

export const listDeliveriesQuery = z.strictObject({
  payment_link_id: uuid.optional(),
  shop_id: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER))
    .optional(),
  status: deliveryStatus.optional(),
  ...pageQueryFields,
});

/** Where and how to sign a shop's webhooks; only the notifier asks, and only at send time. */
export const webhookTarget = z.object({
  shop_id: z.number().int(),
  url: z.string().nullable(),
  secret: z.string().nullable(),
  /** The secret before the latest rotation while its overlap lasts: every webhook then carries both signatures. */
  previous_secret: z.string().nullable(),
  /** The event types the shop is sent; every event is recorded for the events API whatever this says. */
  webhook_events: z.array(eventType),
});
export type WebhookTarget = z.infer<typeof webhookTarget>;
