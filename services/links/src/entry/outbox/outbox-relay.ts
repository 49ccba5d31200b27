import type { Logger } from 'pino';
import type { EventMessage, EventPublisher } from '@pl/bus';
import { WriteBatcher } from '@pl/db';
import { contextFromTraceparent, contextOf, injectTraceContext, SpanKind, SpanStatusCode, tracer, TRACEPARENT, type Span } from '@pl/telemetry';
import type { OutboxEntry } from '../../domain/link';
import { NO_CRASH_POINTS, type CrashPoints } from '../../domain/ports';
import { backoffMs, Wakeable } from '../background/wakeable';

/** The outbox as the relay needs it (OutboxRepository in production). */
interface OutboxSource {
  /**
   * Claims up to `limit` unpublished rows written at least `olderThanMs` ago, hands them to `publish` and
   * marks them published, all in one transaction; returns how many went out.
   */
  publishBatch(limit: number, olderThanMs: number, publish: (entries: OutboxEntry[]) => Promise<void>): Promise<number>;
  markPublished(ids: string[]): Promise<void>;
}

export interface OutboxRelayOptions {
  outbox: OutboxSource;
  publisher: EventPublisher;
  pollIntervalMs: number;
  batchSize: number;
  /** A publish that has not been acknowledged by then counts as failed; its rows come again. */
  publishTimeoutMs: number;
  maxBackoffMs: number;
  log: Logger;
  /** The crash tests' hook, told after each batch Kafka acknowledged and before it is marked. */
  crashPoints?: CrashPoints;
}

/** Entries this process committed and holds for publishing at most; beyond, they wait for the poll. */
const MAX_HANDED_OVER = 10_000;
/** Published events marked by one statement at most. */
const MARK_BATCH = 1000;

/**
 * Runs of consecutive entries of one topic and one stored trace context, in the entries' order: a link's events stay
 * in theirs, whatever their trace contexts.
 */
function byTrace(entries: readonly OutboxEntry[]): OutboxEntry[][] {
  const runs: OutboxEntry[][] = [];
  let last: OutboxEntry | undefined;
  for (const e of entries) {
    const run = runs.at(-1);
    if (run && last?.topic === e.topic && last.headers[TRACEPARENT] === e.headers[TRACEPARENT]) run.push(e);
    else runs.push([e]);
    last = e;
  }
  return runs;
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
 * Publishes outbox rows to Kafka, by two roads:
 * - The process that commits an event hands it over ({@link handOver}): it is published at once, straight
 *   from memory. Nothing is read back and no transaction is held open while Kafka answers: this is every
 *   payment's path. Published events are marked in the background, those published meanwhile together
 *   (one statement, not one per publish); a mark lost to a crash or an outage only means a republish.
 * - A poll claims rows nobody published (their writer died, or its publish failed) once they are older than
 *   the publish time-out, so a hand-over still in flight on some replica is never taken from it (FOR UPDATE
 *   SKIP LOCKED, oldest first, so replicas share the work), publishes them and marks them in one transaction.
 * A crash between publish and mark publishes an event again with the same event id (at-least-once), which
 *   the notifier deduplicates. While Kafka is down the rows wait and the relay retries with backoff, warning
 *   once per outage; hand-overs wait for the next try, and those a failed try drops are left to the poll.
 */
export class OutboxRelay {
  private readonly wakeable = new Wakeable();
  private handedOver: OutboxEntry[] = [];
  private readonly marks: WriteBatcher<string, void>;
  private failures = 0;
  private loop: Promise<void> | null = null;
  private readonly crashPoints: CrashPoints;

  constructor(private readonly options: OutboxRelayOptions) {
    this.crashPoints = options.crashPoints ?? NO_CRASH_POINTS;
    this.marks = new WriteBatcher<string, void>(async (ids) => {
      await options.outbox.markPublished(ids);
      return ids.map(() => undefined);
    }, MARK_BATCH);
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** An event this process just committed to the outbox: publish it now rather than at the next poll. */
  handOver(entry: OutboxEntry): void {
    if (this.wakeable.isStopped || this.handedOver.length >= MAX_HANDED_OVER) return;
    this.handedOver.push(entry);
    this.wakeable.wake();
  }

  /** Publishes what was handed over, finishes the batch in flight and its marks, then stops; the publisher is closed. */
  async stop(): Promise<void> {
    this.wakeable.stop();
    await this.loop;
    await this.marks.settled();
    await this.options.publisher.close();
  }

  /** Publishes until no row the poll may take is left; returns how many went out. */
  async drain(): Promise<number> {
    const { outbox, batchSize, publishTimeoutMs } = this.options;
    let total = 0;
    for (;;) {
      const n = await outbox.publishBatch(batchSize, publishTimeoutMs, async (entries) => {
        await this.publish(entries);
        this.crashPoints.reached('links.after-publish-before-mark');
      });
      total += n;
      if (n < batchSize || this.wakeable.isStopped) return total;
    }
  }

  /** Publishes and marks what was handed over; returns how many went out. */
  private async publishHandedOver(): Promise<number> {
    let total = 0;
    while (this.handedOver.length > 0) {
      const batch = this.handedOver.splice(0, this.options.batchSize);
      try {
        await this.publish(batch);
      } catch (err) {
        // The rows stay unpublished in the outbox: the poll takes them once they are old enough.
        this.handedOver = [];
        throw err;
      }
      this.crashPoints.reached('links.after-publish-before-mark');
      for (const e of batch) {
        this.marks.add(e.id).catch((err: unknown) => {
          // The row stays unpublished: the poll publishes it again once it is old enough (same event id).
          this.options.log.debug({ err, event_id: e.id }, 'could not mark a published event; it will be published again');
        });
      }
      total += batch.length;
    }
    return total;
  }

  private async run(): Promise<void> {
    const { pollIntervalMs, maxBackoffMs, log } = this.options;
    let nextPollAt = 0;
    for (;;) {
      try {
        let published = await this.publishHandedOver();
        if (this.wakeable.isStopped) return;
        if (Date.now() >= nextPollAt) {
          published += await this.drain();
          nextPollAt = Date.now() + pollIntervalMs;
        }
        // An outage ends with the first event Kafka takes again (an idle relay cannot tell before).
        if (this.failures > 0 && published > 0) {
          log.info({ published, failed_attempts: this.failures }, 'outbox relay publishing again');
          this.failures = 0;
        }
        await this.wakeable.sleep(Math.max(0, nextPollAt - Date.now()));
      } catch (err) {
        this.failures += 1;
        const retryInMs = backoffMs(this.failures, pollIntervalMs, maxBackoffMs);
        if (this.failures === 1) log.warn({ err, retry_in_ms: retryInMs }, 'outbox relay cannot publish; events stay in the outbox');
        else log.debug({ err, failures: this.failures, retry_in_ms: retryInMs }, 'outbox relay still cannot publish');
        nextPollAt = 0;
        // Wake-ups do not cut a backoff short: during an outage they would only hammer the brokers.
        await this.wakeable.sleep(retryInMs, false);
        if (this.wakeable.isStopped) return;
      }
    }
  }

  /**
   * One publish per topic, in order; messages of a link share its key and so its partition. Consecutive messages of
   * one topic written under one trace context (a move's event has its own; the events of a sweep's batch share the
   * sweep's) get one PRODUCER span, the child of that trace, and carry that span's `traceparent` to the consumer:
   * a payment's event keeps a span of its own, and a batch of 1,000 expired links costs one span, not 1,000.
   */
  private async publish(entries: OutboxEntry[]): Promise<void> {
    const byTopic = new Map<string, EventMessage[]>();
    const spans: Span[] = [];
    for (const group of byTrace(entries)) {
      const [first] = group;
      if (!first) continue;
      const span = tracer().startSpan(
        `${first.topic} publish`,
        {
          kind: SpanKind.PRODUCER,
          attributes: {
            'messaging.system': 'kafka',
            'messaging.destination.name': first.topic,
            ...(group.length === 1 ? { 'messaging.message.id': first.id } : { 'messaging.batch.message_count': group.length }),
          },
        },
        contextFromTraceparent(first.headers[TRACEPARENT]),
      );
      spans.push(span);
      const trace: Record<string, string> = {};
      injectTraceContext((k, v) => (trace[k] = v), contextOf(span));
      const messages = byTopic.get(first.topic) ?? [];
      for (const e of group) {
        // The producer span's own context replaces the stored one.
        const { [TRACEPARENT]: _stored, ...headers } = e.headers;
        messages.push({ key: e.key, value: e.json ?? JSON.stringify(e.payload), headers: { ...headers, ...trace } });
      }
      byTopic.set(first.topic, messages);
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
