import { Kafka, logLevel, type Consumer, type KafkaMessage, type Producer, type LogEntry } from 'kafkajs';
import type { Logger } from 'pino';
import { Counter, Gauge, registeredMetric, type Registry } from '@pl/telemetry';

/**
 * Our own small interface to the event log. kafkajs is in maintenance mode; everything outside this
 * file sees only these types, so swapping in @confluentinc/kafka-javascript (KafkaJS-compatible) touches
 * one module.
 */
export interface EventMessage {
  key: string;
  value: string;
  headers: Record<string, string>;
}

export interface ReceivedEvent extends EventMessage {
  topic: string;
  partition: number;
  offset: string;
}

export interface EventPublisher {
  /** Resolves once the brokers acknowledged every message (acks from all in-sync replicas). */
  publish(topic: string, messages: EventMessage[]): Promise<void>;
  close(): Promise<void>;
}

export interface EventSubscriber {
  /**
   * Consumes a topic in a consumer group. The offset of a message is committed only after the handler
   * resolved (about once a second, and at close: after a crash up to a second of handled messages comes
   * again, so handlers must be idempotent); a handler that throws makes the message come again.
   * Connecting, joining the group and reconnecting after a broker outage go on in the background, so a
   * service need not wait (and serves what does not need Kafka while Kafka is down); the promise resolves
   * once the consumer is subscribed, for callers that must not publish before that.
   */
  run(handler: (event: ReceivedEvent) => Promise<void>): Promise<void>;
  /**
   * Like {@link run}, but the handler takes the messages of one partition in slices of up to
   * `maxBatchMessages`, in offset order, so it can store a slice with one statement. A slice's offsets are
   * committed only after the handler resolved; a handler that throws makes the whole slice come again.
   * The partitions of one fetch are handled side by side (up to `partitionsAtOnce`), each in order, and the
   * next fetch waits for all of them.
   */
  runBatches(handler: (events: ReceivedEvent[]) => Promise<void>): Promise<void>;
  /** True while the consumer is in its group and fetching. */
  isRunning(): boolean;
  /** Leaves the group, committing the offsets of handled messages (waiting a bounded time for that). */
  close(): Promise<void>;
}

export interface KafkaOptions {
  brokers: string[];
  clientId: string;
  log: Logger;
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

function kafkaClient(options: KafkaOptions): Kafka {
  return new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    retry: { initialRetryTime: 200, retries: 8, maxRetryTime: 5000 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log }: LogEntry) => {
        const { message, ...extra } = log;
        options.log[LEVELS[level] ?? 'info']({ kafka: extra }, `kafka: ${message}`);
      },
  });
}

export function createEventPublisher(options: KafkaOptions): EventPublisher {
  const producer: Producer = kafkaClient(options).producer({ allowAutoTopicCreation: true });
  let connected: Promise<void> | undefined;
  const ensureConnected = (): Promise<void> => {
    connected ??= producer.connect().catch((e: unknown) => {
      connected = undefined;
      throw e;
    });
    return connected;
  };
  return {
    async publish(topic, messages) {
      await ensureConnected();
      await producer.send({
        topic,
        acks: -1,
        messages: messages.map((m) => ({ key: m.key, value: m.value, headers: m.headers })),
      });
    },
    async close() {
      if (connected) await producer.disconnect().catch(() => undefined);
    },
  };
}

export interface SubscriberOptions extends KafkaOptions {
  groupId: string;
  topic: string;
  /** How long the group waits for a silent member; a restarted member waits out its old self. */
  sessionTimeoutMs?: number;
  /** Longest a fetch waits for data (default 100 ms). */
  maxWaitTimeMs?: number;
  /** Most messages handed to a `runBatches` handler at once (default 500). */
  maxBatchMessages?: number;
  /**
   * Partitions whose messages are handled at the same time (default 1). A fetch brings at most one record
   * batch per partition from some brokers (librdkafka's mock), so one at a time caps a consumer at a few
   * batches per handler round trip.
   */
  partitionsAtOnce?: number;
  /** Where the consumer's lag, offsets and message counts are recorded; none when absent. */
  metrics?: Registry;
}

interface ConsumerMetrics {
  lag: Gauge<'topic' | 'partition'>;
  lastOffset: Gauge<'topic' | 'partition'>;
  messages: Counter<'topic' | 'outcome'>;
}

function consumerMetrics(registry: Registry): ConsumerMetrics {
  const registers = [registry];
  return {
    lag: registeredMetric(
      registry,
      'kafka_consumer_lag',
      () =>
        new Gauge({
          name: 'kafka_consumer_lag',
          help: 'Messages in the partition after the last one handled (high watermark - 1 - last offset), as of the last fetched batch',
          labelNames: ['topic', 'partition'],
          registers,
        }),
    ),
    lastOffset: registeredMetric(
      registry,
      'kafka_consumer_last_offset',
      () =>
        new Gauge({
          name: 'kafka_consumer_last_offset',
          help: 'Offset of the last message handled, per partition',
          labelNames: ['topic', 'partition'],
          registers,
        }),
    ),
    messages: registeredMetric(
      registry,
      'kafka_consumer_messages_total',
      () =>
        new Counter({
          name: 'kafka_consumer_messages_total',
          help: 'Messages handed to the handler, by outcome (ok, or error: it comes again)',
          labelNames: ['topic', 'outcome'],
          registers,
        }),
    ),
  };
}

const toHeaders = (raw: Record<string, Buffer | string | (Buffer | string)[] | undefined> | undefined): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw ?? {})) {
    if (v !== undefined) headers[k] = Array.isArray(v) ? String(v[0]) : String(v);
  }
  return headers;
};

/** How often handled offsets are committed while consuming. */
const COMMIT_INTERVAL_MS = 1000;
/** The longest close() waits for its final commit. */
const COMMIT_AT_CLOSE_MS = 2000;

/** Waits for `work` at most `ms`; its failure is ignored. */
const bounded = (work: Promise<unknown>, ms: number): Promise<void> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]).finally(() => clearTimeout(timer));
};

const toEvent = (topic: string, partition: number, message: KafkaMessage): ReceivedEvent => ({
  topic,
  partition,
  offset: message.offset,
  key: message.key?.toString('utf8') ?? '',
  value: message.value?.toString('utf8') ?? '',
  headers: toHeaders(message.headers),
});

export function createEventSubscriber(options: SubscriberOptions): EventSubscriber {
  const consumer: Consumer = kafkaClient(options).consumer({
    groupId: options.groupId,
    sessionTimeout: options.sessionTimeoutMs ?? 10_000,
    heartbeatInterval: 1000,
    // A real broker answers a fetch as soon as data arrives; librdkafka's mock holds it for the whole wait,
    // so a long wait would become the event latency there.
    maxWaitTimeInMs: options.maxWaitTimeMs ?? 100,
    allowAutoTopicCreation: true,
    // kafkajs's own restart after a crash does not know about close(): a crash that close() itself causes
    // (a connect in flight cut off) would otherwise restart a closed consumer, retrying for ever.
    // `retries: 5` is kafkajs's consumer default, which any `retry` option replaces.
    retry: { retries: 5, restartOnFailure: () => Promise.resolve(!closed) },
  });
  let running = false;
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  /** Per partition, the offset after the last message handled: what close() commits. */
  const handled = new Map<string, { topic: string; partition: number; offset: string }>();
  /** Always takes a slice; `run` hands it slices of one message. */
  let handler: { onEvents: (events: ReceivedEvent[]) => Promise<void>; sliceSize: number } | undefined;
  let subscribed: () => void = () => undefined;
  const whenSubscribed = new Promise<void>((resolve) => (subscribed = resolve));

  consumer.on(consumer.events.GROUP_JOIN, () => {
    running = true;
  });
  const metrics = options.metrics ? consumerMetrics(options.metrics) : undefined;
  if (metrics) {
    // kafkajs reports each batch's lag after handling it: lag with no extra round-trip to the brokers.
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      metrics.lag.set({ topic: payload.topic, partition: String(payload.partition) }, Number(payload.offsetLag));
    });
  }
  consumer.on(consumer.events.CRASH, (e) => {
    running = false;
    // kafkajs restarts by itself after retriable errors; after any other it stops for good, so we do it.
    if (!e.payload.restart && !closed) scheduleStart(1000);
  });

  const start = async (): Promise<void> => {
    if (closed || !handler) return;
    const consume = handler;
    try {
      await consumer.connect();
      await consumer.subscribe({ topic: options.topic, fromBeginning: true });
      subscribed();
      // close() came while this was connecting: a consumer run now would outlive it.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- close() may have run during the awaits above; narrowing cannot see it
      if (closed) {
        await consumer.disconnect().catch(() => undefined);
        return;
      }
      await consumer.run({
        // Handled offsets are committed at most every COMMIT_INTERVAL_MS (and at close), not after every batch:
        // a commit is a round trip to the broker, and what a crash leaves uncommitted only comes again.
        autoCommit: false,
        autoCommitInterval: COMMIT_INTERVAL_MS,
        partitionsConsumedConcurrently: options.partitionsAtOnce ?? 1,
        // Offsets are resolved slice by slice below, so a throw leaves the rest of the batch to come again.
        eachBatchAutoResolve: false,
        eachBatch: async (payload) => {
          const { batch } = payload;
          const { topic, partition } = batch;
          for (let from = 0; from < batch.messages.length && payload.isRunning() && !payload.isStale(); from += consume.sliceSize) {
            const slice = batch.messages.slice(from, from + consume.sliceSize);
            try {
              await consume.onEvents(slice.map((m) => toEvent(topic, partition, m)));
            } catch (e) {
              metrics?.messages.inc({ topic, outcome: 'error' }, slice.length);
              throw e;
            }
            const last = slice.at(-1);
            if (last === undefined) break; // never: the loop takes only slices that hold a message
            payload.resolveOffset(last.offset);
            handled.set(`${topic}:${partition}`, { topic, partition, offset: (BigInt(last.offset) + 1n).toString() });
            metrics?.messages.inc({ topic, outcome: 'ok' }, slice.length);
            metrics?.lastOffset.set({ topic, partition: String(partition) }, Number(last.offset));
            await payload.heartbeat();
            await payload.commitOffsetsIfNecessary();
          }
        },
      });
    } catch (err) {
      options.log.warn({ err, topic: options.topic }, 'kafka consumer could not start; retrying');
      await consumer.disconnect().catch(() => undefined);
      scheduleStart(2000);
    }
  };
  const scheduleStart = (delayMs: number): void => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void start();
    }, delayMs);
  };

  return {
    run(onMessage) {
      handler = {
        sliceSize: 1,
        onEvents: async (events) => {
          for (const event of events) await onMessage(event);
        },
      };
      void start();
      return whenSubscribed;
    },
    runBatches(onEvents) {
      handler = { sliceSize: options.maxBatchMessages ?? 500, onEvents };
      void start();
      return whenSubscribed;
    },
    isRunning: () => running,
    async close() {
      closed = true;
      running = false;
      if (retryTimer) clearTimeout(retryTimer);
      // Before leaving (kafkajs commits nothing once stopped); a commit that fails or lags only means redelivery.
      if (handled.size > 0) await bounded(consumer.commitOffsets([...handled.values()]), COMMIT_AT_CLOSE_MS);
      await consumer.disconnect().catch(() => undefined);
    },
  };
}
