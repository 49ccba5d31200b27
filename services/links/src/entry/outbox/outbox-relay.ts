import type { Logger } from 'pino';
import type { EventMessage, EventPublisher } from '@pl/bus';
import { contextFromTraceparent, contextOf, injectTraceContext, SpanKind, SpanStatusCode, tracer, TRACEPARENT, type Span } from '@pl/telemetry';
import type { OutboxEntry } from '../../domain/link';
import { backoffMs, Wakeable } from '../background/wakeable';

/** The outbox as the relay needs it (OutboxRepository in production). */
export interface OutboxSource {
  publishBatch(limit: number, publish: (entries: OutboxEntry[]) => Promise<void>): Promise<number>;
}

/** Wakes the relay when rows are committed (OutboxListener in production). */
export interface OutboxWakeups {
  ensureListening(): Promise<void>;
  close(): Promise<void>;
}

export interface OutboxRelayOptions {
  outbox: OutboxSource;
  publisher: EventPublisher;
  /** Built with the relay's wake function, so notifications reach this relay. */
  wakeups: (wake: () => void) => OutboxWakeups;
  pollIntervalMs: number;
  batchSize: number;
  /** A publish that has not been acknowledged by then counts as failed; its rows come again. */
  publishTimeoutMs: number;
  maxBackoffMs: number;
  log: Logger;
}

function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  // The abandoned publish may still fail later; nothing waits for it any more.
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`publish not acknowledged within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Publishes outbox rows to Kafka. Each pass claims a batch (FOR UPDATE SKIP LOCKED, oldest first, so
 * replicas share the work and one link's events go out in commit order), publishes it and marks it in
 * the same transaction. A crash between publish and mark publishes the batch again: at-least-once with
 * the same event id, which the notifier deduplicates. While Kafka is down the rows wait and the relay
 * retries with backoff, warning once per outage.
 */
export class OutboxRelay {
  private readonly wakeable = new Wakeable();
  private readonly wakeups: OutboxWakeups;
  private loop: Promise<void> | null = null;

  constructor(private readonly options: OutboxRelayOptions) {
    this.wakeups = options.wakeups(() => this.wakeable.wake());
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Finishes the batch in flight, then stops; the publisher and listener are closed. */
  async stop(): Promise<void> {
    this.wakeable.stop();
    await this.loop;
    await Promise.all([this.wakeups.close(), this.options.publisher.close()]);
  }

  /** Publishes until no unpublished row is left; returns how many went out. */
  async drain(): Promise<number> {
    const { outbox, batchSize } = this.options;
    let total = 0;
    for (;;) {
      const n = await outbox.publishBatch(batchSize, (entries) => this.publish(entries));
      total += n;
      if (n < batchSize || this.wakeable.isStopped) return total;
    }
  }

  private async run(): Promise<void> {
    const { pollIntervalMs, maxBackoffMs, log } = this.options;
    let failures = 0;
    while (!this.wakeable.isStopped) {
      try {
        await this.wakeups.ensureListening();
        const published = await this.drain();
        if (failures > 0) log.info({ published, failed_attempts: failures }, 'outbox relay publishing again');
        failures = 0;
        await this.wakeable.sleep(pollIntervalMs);
      } catch (err) {
        failures += 1;
        const retryInMs = backoffMs(failures, pollIntervalMs, maxBackoffMs);
        if (failures === 1) log.warn({ err, retry_in_ms: retryInMs }, 'outbox relay cannot publish; events stay in the outbox');
        else log.debug({ err, failures, retry_in_ms: retryInMs }, 'outbox relay still cannot publish');
        // Notifications do not cut a backoff short: during an outage they would only hammer the brokers.
        await this.wakeable.sleep(retryInMs, false);
      }
    }
  }

  /**
   * One publish per topic, in claim order; messages of a link share its key and so its partition. Each
   * message gets a PRODUCER span, the child of the trace stored with its row, and carries that span's
   * `traceparent` to the consumer.
   */
  private async publish(entries: OutboxEntry[]): Promise<void> {
    const byTopic = new Map<string, EventMessage[]>();
    const spans: Span[] = [];
    for (const e of entries) {
      const messages = byTopic.get(e.topic) ?? [];
      const span = tracer().startSpan(
        `${e.topic} publish`,
        { kind: SpanKind.PRODUCER, attributes: { 'messaging.system': 'kafka', 'messaging.destination.name': e.topic, 'messaging.message.id': e.id } },
        contextFromTraceparent(e.headers[TRACEPARENT]),
      );
      spans.push(span);
      const headers = { ...e.headers };
      delete headers[TRACEPARENT];
      injectTraceContext((k, v) => (headers[k] = v), contextOf(span));
      messages.push({ key: e.key, value: JSON.stringify(e.payload), headers });
      byTopic.set(e.topic, messages);
    }
    try {
      for (const [topic, messages] of byTopic) {
        await withTimeout(this.options.publisher.publish(topic, messages), this.options.publishTimeoutMs);
      }
    } catch (err) {
      for (const span of spans) span.setStatus({ code: SpanStatusCode.ERROR, message: 'publish failed; the row stays in the outbox' });
      throw err;
    } finally {
      for (const span of spans) span.end();
    }
  }
}
