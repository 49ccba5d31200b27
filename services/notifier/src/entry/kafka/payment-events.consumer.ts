import { randomUUID } from 'node:crypto';
import type { EventSubscriber, ReceivedEvent } from '@pl/bus';
import { EVENT_TYPES, modeOfLivemode, platformEvent, type PlatformEvent } from '@pl/contracts';
import { contextFrom, contextOf, injectTraceContext, MODE_ATTRIBUTE, SpanKind, SpanStatusCode, tracer, TRACEPARENT, type Span } from '@pl/telemetry';
import type { Logger } from 'pino';
import {
  acceptEvents,
  type EventInbox,
  type EventSubscriptions,
  type FreshDeliverySlots,
  type ReceivedPaymentEvent,
} from '../../domain/payment-event';

/**
 * The Kafka entry point. A slice of one partition's messages is stored with one statement (every event,
 * with its delivery when the shop is subscribed to its type) before the handler resolves, so its offsets are
 * committed only once nothing can lose them. A malformed message, or one of a type this notifier does not know
 * yet (a newer producer), is logged and skipped (retrying it would block the partition forever); a storage
 * failure or a failed subscription look-up throws, so the whole slice comes again (the inbox drops what it
 * already holds). Each message gets its CONSUMER span, the child of the producer's `traceparent` header;
 * the delivery is stored with that span's context, so its webhook attempts continue the payment's trace.
 * Deliveries the worker has slots for are stored claimed and sent at once; the worker is woken only for
 * those left due.
 */
function paymentEventsHandler(
  inbox: EventInbox,
  subscriptions: EventSubscriptions,
  slots: FreshDeliverySlots,
  onDue: () => void,
  log: Logger,
): (messages: ReceivedEvent[]) => Promise<void> {
  return async (messages) => {
    const traced = messages.map((message) => ({ message, span: consumerSpan(message) }));
    const spans = traced.map(({ span }) => span);
    try {
      const received: ReceivedPaymentEvent[] = [];
      for (const { message, span } of traced) {
        const event = parse(message, log);
        if (!event) continue;
        span.setAttribute(MODE_ATTRIBUTE, modeOfLivemode(event.livemode));
        received.push({ event, traceparent: traceparentOf(span) });
      }
      const { stored, due } = await acceptEvents(inbox, subscriptions, received, randomUUID, slots);
      log.debug({ partition: messages[0]?.partition, messages: messages.length, stored, due }, 'payment events taken in');
      if (due > 0) onDue();
    } catch (e) {
      for (const span of spans) span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : 'error' });
      throw e;
    } finally {
      for (const span of spans) span.end();
    }
  };
}

const consumerSpan = (message: ReceivedEvent): Span =>
  tracer().startSpan(
    `${message.topic} process`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'kafka',
        'messaging.destination.name': message.topic,
        'messaging.destination.partition.id': String(message.partition),
        'messaging.kafka.offset': Number(message.offset),
      },
    },
    contextFrom((key) => message.headers[key]),
  );

function traceparentOf(span: Span): string | null {
  let value: string | null = null;
  injectTraceContext((key, v) => {
    if (key === TRACEPARENT) value = v;
  }, contextOf(span));
  return value;
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

const typeOf = (payload: unknown): unknown => (typeof payload === 'object' && payload !== null ? (payload as { event?: unknown }).event : undefined);

function parse(message: ReceivedEvent, log: Logger): PlatformEvent | null {
  const where = { topic: message.topic, partition: message.partition, offset: message.offset };
  let payload: unknown;
  try {
    payload = JSON.parse(message.value);
  } catch {
    log.warn(where, 'skipping a payment event that is not JSON');
    return null;
  }
  const type = typeOf(payload);
  if (typeof type === 'string' && !KNOWN_TYPES.has(type)) {
    // A type added to the producer before this notifier learnt it: not an error of the message.
    log.info({ ...where, event: type.slice(0, 64) }, 'skipping an event of a type this notifier does not know');
    return null;
  }
  const parsed = platformEvent.safeParse(payload);
  if (!parsed.success) {
    // Issue paths and messages only: the values may be a payment's data.
    log.warn({ ...where, issues: parsed.error.issues.map((i) => ({ path: i.path, message: i.message })) }, 'skipping a malformed payment event');
    return null;
  }
  return parsed.data;
}

/** Starts consuming in the background; the subscriber keeps reconnecting while Kafka is away. */
export function consumePaymentEvents(
  subscriber: EventSubscriber,
  inbox: EventInbox,
  subscriptions: EventSubscriptions,
  slots: FreshDeliverySlots,
  onDue: () => void,
  log: Logger,
): void {
  // Not awaited: the notifier serves (and sends what it holds) while Kafka is still away.
  void subscriber.runBatches(paymentEventsHandler(inbox, subscriptions, slots, onDue, log));
}
