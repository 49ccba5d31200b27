import { randomUUID } from 'node:crypto';
import type { EventSubscriber, ReceivedEvent } from '@pl/bus';
import { paymentSucceededEvent } from '@pl/contracts';
import { contextFrom, inSpan, SpanKind } from '@pl/telemetry';
import type { Logger } from 'pino';
import { acceptPaymentEvent, type EventInbox } from '../../domain/payment-event';

/**
 * The Kafka entry point: each `payment.succeeded` is stored with its delivery before the handler
 * resolves, so its offset is committed only once nothing can lose it. A malformed message is logged and
 * skipped (retrying it would block the partition forever); a storage failure throws, so it comes again.
 * Each message is handled in a CONSUMER span, the child of the producer's `traceparent` header; the
 * delivery is stored with that context, so its webhook attempts continue the payment's trace.
 */
export function paymentEventHandler(inbox: EventInbox, onStored: () => void, log: Logger): (event: ReceivedEvent) => Promise<void> {
  return (message) =>
    inSpan(
      `${message.topic} process`,
      {
        kind: SpanKind.CONSUMER,
        parent: contextFrom((key) => message.headers[key]),
        attributes: {
          'messaging.system': 'kafka',
          'messaging.destination.name': message.topic,
          'messaging.destination.partition.id': String(message.partition),
          'messaging.kafka.offset': Number(message.offset),
        },
      },
      () => takeIn(message, inbox, onStored, log),
    );
}

async function takeIn(message: ReceivedEvent, inbox: EventInbox, onStored: () => void, log: Logger): Promise<void> {
  const where = { topic: message.topic, partition: message.partition, offset: message.offset };
  let payload: unknown;
  try {
    payload = JSON.parse(message.value);
  } catch {
    log.warn(where, 'skipping a payment event that is not JSON');
    return;
  }
  const parsed = paymentSucceededEvent.safeParse(payload);
  if (!parsed.success) {
    // Issue paths and messages only: the values may be a payment's data.
    log.warn({ ...where, issues: parsed.error.issues.map((i) => ({ path: i.path, message: i.message })) }, 'skipping a malformed payment event');
    return;
  }
  const stored = await acceptPaymentEvent(inbox, parsed.data, randomUUID);
  log.debug({ ...where, event_id: parsed.data.event_id, new: stored }, 'payment event taken in');
  if (stored) onStored();
}

/** Starts consuming in the background; the subscriber keeps reconnecting while Kafka is away. */
export function consumePaymentEvents(subscriber: EventSubscriber, inbox: EventInbox, onStored: () => void, log: Logger): void {
  // Not awaited: the notifier serves (and sends what it holds) while Kafka is still away.
  void subscriber.run(paymentEventHandler(inbox, onStored, log));
}
