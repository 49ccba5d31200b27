import { Kafka, logLevel, type Consumer, type Producer, type LogEntry } from 'kafkajs';
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
   * resolved; a handler that throws makes the message come again. Connecting, joining the group and
   * reconnecting after a broker outage go on in the background, so a service need not wait (and serves what
   * does not need Kafka while Kafka is down); the promise resolves once the consumer is subscribed, for
   * callers that must not publish before that.
   */
  run(handler: (event: ReceivedEvent) => Promise<void>): Promise<void>;
  /** True while the consumer is in its group and fetching. */
  isRunning(): boolean;
  /** Leaves the group, committing the offsets of handled messages. */
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
    lag: registeredMetric(registry, 'kafka_consumer_lag', () => new Gauge({
      name: 'kafka_consumer_lag',
      help: 'Messages in the partition after the last one handled (high watermark - 1 - last offset), as of the last fetched batch',
      labelNames: ['topic', 'partition'],
      registers,
    })),
    lastOffset: registeredMetric(registry, 'kafka_consumer_last_offset', () => new Gauge({
      name: 'kafka_consumer_last_offset',
      help: 'Offset of the last message handled, per partition',
      labelNames: ['topic', 'partition'],
      registers,
    })),
    messages: registeredMetric(registry, 'kafka_consumer_messages_total', () => new Counter({
      name: 'kafka_consumer_messages_total',
      help: 'Messages handed to the handler, by outcome (ok, or error: it comes again)',
      labelNames: ['topic', 'outcome'],
      registers,
    })),
  };
}

const toHeaders = (raw: Record<string, Buffer | string | (Buffer | string)[] | undefined> | undefined): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw ?? {})) {
    if (v !== undefined) headers[k] = Array.isArray(v) ? String(v[0]) : String(v);
  }
  return headers;
};

export function createEventSubscriber(options: SubscriberOptions): EventSubscriber {
  const consumer: Consumer = kafkaClient(options).consumer({
    groupId: options.groupId,
    sessionTimeout: options.sessionTimeoutMs ?? 10_000,
    heartbeatInterval: 1000,
    // A real broker answers a fetch as soon as data arrives; librdkafka's mock holds it for the whole wait,
    // so a long wait would become the event latency there.
    maxWaitTimeInMs: options.maxWaitTimeMs ?? 100,
    allowAutoTopicCreation: true,
  });
  let running = false;
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let handler: ((event: ReceivedEvent) => Promise<void>) | undefined;
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
    const onMessage = handler;
    try {
      await consumer.connect();
      await consumer.subscribe({ topic: options.topic, fromBeginning: true });
      subscribed();
      await consumer.run({
        autoCommit: true,
        eachMessage: async ({ topic, partition, message }) => {
          try {
            await onMessage({
              topic,
              partition,
              offset: message.offset,
              key: message.key?.toString('utf8') ?? '',
              value: message.value?.toString('utf8') ?? '',
              headers: toHeaders(message.headers),
            });
          } catch (e) {
            metrics?.messages.inc({ topic, outcome: 'error' });
            throw e;
          }
          metrics?.messages.inc({ topic, outcome: 'ok' });
          metrics?.lastOffset.set({ topic, partition: String(partition) }, Number(message.offset));
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
      handler = onMessage;
      void start();
      return whenSubscribed;
    },
    isRunning: () => running,
    async close() {
      closed = true;
      running = false;
      if (retryTimer) clearTimeout(retryTimer);
      await consumer.disconnect().catch(() => undefined);
    },
  };
}
