import { Kafka, logLevel, type Consumer, type Producer, type LogEntry } from 'kafkajs';
import type { Logger } from 'pino';

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
   * resolved; a handler that throws makes the message come again.
   */
  run(handler: (event: ReceivedEvent) => Promise<void>): Promise<void>;
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
}

export function createEventSubscriber(options: SubscriberOptions): EventSubscriber {
  const consumer: Consumer = kafkaClient(options).consumer({
    groupId: options.groupId,
    sessionTimeout: options.sessionTimeoutMs ?? 10_000,
    heartbeatInterval: 1000,
    allowAutoTopicCreation: true,
  });
  return {
    async run(handler) {
      await consumer.connect();
      await consumer.subscribe({ topic: options.topic, fromBeginning: true });
      await consumer.run({
        autoCommit: true,
        eachMessage: async ({ topic, partition, message }) => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(message.headers ?? {})) {
            if (v !== undefined) headers[k] = Array.isArray(v) ? String(v[0]) : String(v);
          }
          await handler({
            topic,
            partition,
            offset: message.offset,
            key: message.key?.toString('utf8') ?? '',
            value: message.value?.toString('utf8') ?? '',
            headers,
          });
        },
      });
    },
    async close() {
      await consumer.disconnect().catch(() => undefined);
    },
  };
}
