import { z } from 'zod';
import { CURSOR_MAX_LENGTH, failureReason, moneyText, moscowDate, PAGE_LIMIT_MAX, pageQueryFields, positiveId, uuid } from './fields';
import { identifierText } from './text';
import { refund } from './refunds';
import { unresolvedPayment } from './unresolved';
import { payout } from './payouts';

/** Kafka topic of payment events; the key of every message is the payment link id (a payout's events: the payout id). */
export const PAYMENT_EVENTS_TOPIC = 'payment-events';

/** Every event type of docs/webhooks.md, "Event types": one per state change. */
export const EVENT_TYPES = [
  'payment.succeeded',
  'payment.failed',
  'payment_link.canceled',
  'payment_link.expired',
  'refund.succeeded',
  'refund.failed',
  'payment.late_settled',
  'unresolved_payment.created',
  'unresolved_payment.settled',
  'unresolved_payment.refunded',
  'payout.created',
  'payout.paid',
  'payout.failed',
  'payout.canceled',
] as const;
export const eventType = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof eventType>;

/** What a shop is sent unless it chooses otherwise: the contract's one event, so today's integrations see nothing new. */
export const DEFAULT_WEBHOOK_EVENTS: readonly EventType[] = ['payment.succeeded'];

/** The public id of an event: its body's `event_id`, the `webhook-id` of its deliveries, the events API's path id. */
export const publicEventId = (eventId: string): string => `evt_${eventId}`;
export const PUBLIC_EVENT_ID = /^evt_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The fields of the contract's `payment.succeeded` data, shared by every link event. */
const linkEventData = {
  payment_link_id: uuid,
  id: uuid,
  shop_id: positiveId,
  order_id: z.string().nullable(),
  amount: moneyText,
  merchant_credit: moneyText,
};

export const paymentSucceededData = z.object({ ...linkEventData, status: z.literal('paid'), paid_at: moscowDate });
export const paymentFailedData = z.object({ ...linkEventData, status: z.literal('failed'), failed_at: moscowDate, failure_reason: failureReason });
export const linkCanceledData = z.object({ ...linkEventData, status: z.literal('canceled'), canceled_at: moscowDate });
export const linkExpiredData = z.object({ ...linkEventData, status: z.literal('expired'), expired_at: moscowDate });
/**
 * An operator credited a payment that arrived after its link closed: the link keeps its status (expired, canceled,
 * failed, or paid by another payment); `amount` / `merchant_credit` are what the late payment credited.
 */
export const lateSettledData = z.object({
  ...linkEventData,
  status: z.enum(['paid', 'expired', 'canceled', 'failed']),
  late_payment_id: uuid,
  gateway_payment_id: z.string(),
  settled_at: moscowDate,
});

/** The routing facts every event carries through Kafka beside its data. No secrets. */
const envelope = {
  /** The producer's id (a UUID); the public id is {@link publicEventId} of it. */
  event_id: uuid,
  occurred_at: moscowDate,
  merchant_id: uuid,
  /**
   * false for a test link's event. Events written before test mode carry none and were all live: the default
   * keeps them readable while they drain.
   */
  livemode: z.boolean().default(true),
};

/** `payment.succeeded` as it travels through Kafka: the webhook payload plus routing facts. */
export const paymentSucceededEvent = z.object({ ...envelope, event: z.literal('payment.succeeded'), data: paymentSucceededData });
export type PaymentSucceededEvent = z.infer<typeof paymentSucceededEvent>;

/** Any event as it travels through Kafka (topic {@link PAYMENT_EVENTS_TOPIC}, keyed by the link id). */
export const platformEvent = z.discriminatedUnion('event', [
  paymentSucceededEvent,
  z.object({ ...envelope, event: z.literal('payment.failed'), data: paymentFailedData }),
  z.object({ ...envelope, event: z.literal('payment_link.canceled'), data: linkCanceledData }),
  z.object({ ...envelope, event: z.literal('payment_link.expired'), data: linkExpiredData }),
  z.object({ ...envelope, event: z.literal('refund.succeeded'), data: refund }),
  z.object({ ...envelope, event: z.literal('refund.failed'), data: refund }),
  z.object({ ...envelope, event: z.literal('payment.late_settled'), data: lateSettledData }),
  z.object({ ...envelope, event: z.literal('unresolved_payment.created'), data: unresolvedPayment }),
  z.object({ ...envelope, event: z.literal('unresolved_payment.settled'), data: unresolvedPayment }),
  z.object({ ...envelope, event: z.literal('unresolved_payment.refunded'), data: unresolvedPayment }),
  z.object({ ...envelope, event: z.literal('payout.created'), data: payout }),
  z.object({ ...envelope, event: z.literal('payout.paid'), data: payout }),
  z.object({ ...envelope, event: z.literal('payout.failed'), data: payout }),
  z.object({ ...envelope, event: z.literal('payout.canceled'), data: payout }),
]);
export type PlatformEvent = z.infer<typeof platformEvent>;

/**
 * The webhook body of an event, and an item of the events API: `{ event, event_id, created_at, livemode, data }`,
 * `event_id` being the deliveries' `webhook-id`.
 */
const bodyOf = <T extends EventType, D extends z.ZodType>(type: T, data: D) =>
  z.object({ event: z.literal(type), event_id: z.string().regex(PUBLIC_EVENT_ID), created_at: moscowDate, livemode: z.boolean(), data });
export const webhookEvent = z.discriminatedUnion('event', [
  bodyOf('payment.succeeded', paymentSucceededData),
  bodyOf('payment.failed', paymentFailedData),
  bodyOf('payment_link.canceled', linkCanceledData),
  bodyOf('payment_link.expired', linkExpiredData),
  bodyOf('refund.succeeded', refund),
  bodyOf('refund.failed', refund),
  bodyOf('payment.late_settled', lateSettledData),
  bodyOf('unresolved_payment.created', unresolvedPayment),
  bodyOf('unresolved_payment.settled', unresolvedPayment),
  bodyOf('unresolved_payment.refunded', unresolvedPayment),
  bodyOf('payout.created', payout),
  bodyOf('payout.paid', payout),
  bodyOf('payout.failed', payout),
  bodyOf('payout.canceled', payout),
]);
export type WebhookEvent = z.infer<typeof webhookEvent>;

export const webhookEventPage = z.object({
  events: z.array(webhookEvent),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});
export type WebhookEventPage = z.infer<typeof webhookEventPage>;

/** How long the events API keeps an event. */
export const EVENT_RETENTION_DAYS = 30;

/** Query of `GET /merchant/v1/events` and `GET /api/v1/events`. */
export const listEventsQuery = z.strictObject({
  type: eventType.optional(),
  shop_id: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(positiveId)
    .optional(),
  payment_link_id: uuid.optional(),
  ...pageQueryFields,
});

// NATS commands of the notifier (merchant and mode from the identity token).
export const listEventsCommand = z.strictObject({
  type: eventType.nullable(),
  shop_id: positiveId.nullable(),
  payment_link_id: uuid.nullable(),
  limit: z.number().int().min(1).max(PAGE_LIMIT_MAX),
  cursor: identifierText(CURSOR_MAX_LENGTH).nullable(),
});
export type ListEventsCommand = z.infer<typeof listEventsCommand>;
export const eventIdCommand = z.strictObject({ event_id: z.string().max(64) });

/**
 * Kafka headers of every payment event: its id (the same as the payload's `event_id`, so a consumer can dedupe
 * before parsing), its type and the payload's content type. Trace context travels beside them (`traceparent`).
 */
export const EVENT_ID_HEADER = 'event-id';
export const EVENT_TYPE_HEADER = 'event-type';
export const CONTENT_TYPE_HEADER = 'content-type';

/** The headers an event is published with. */
export const paymentEventHeaders = (event: PlatformEvent): Record<string, string> => ({
  [EVENT_ID_HEADER]: event.event_id,
  [EVENT_TYPE_HEADER]: event.event,
  [CONTENT_TYPE_HEADER]: 'application/json',
});
