import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { createEventPublisher, createEventSubscriber, type EventSubscriber, type ReceivedEvent } from '@pl/bus';
import { kafkaBrokersFromEnv } from './links-system';

/** Everything published to one topic, read by a consumer group of its own from the beginning. */
export interface TopicRecorder {
  events: ReceivedEvent[];
  /** Resolves with the events once `count` arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedEvent[]>;
  /** Resolves with the first event of `key` once it arrived (rejects after `timeoutMs`). */
  waitForKey(key: string, timeoutMs?: number): Promise<ReceivedEvent>;
  /**
   * Every event published so far on the partitions of `keys`: a marker is sent with each key and waited
   * for, and a partition delivers in order, so whatever was published before the marker has arrived.
   * This is how a test shows that no duplicate is on its way, without sleeping. Markers are left out.
   */
  settled(keys: string[]): Promise<ReceivedEvent[]>;
  close(): Promise<void>;
}

const MARKER_HEADER = 'x-test-marker';

export async function recordTopic(topic: string): Promise<TopicRecorder> {
  const events: ReceivedEvent[] = [];
  const log = pino({ level: 'silent' });
  const brokers = kafkaBrokersFromEnv().split(',');
  const publisher = createEventPublisher({ brokers, clientId: 'links-test-marker', log });
  const waiters = new Set<() => void>();
  const subscriber: EventSubscriber = createEventSubscriber({
    brokers,
    clientId: 'links-test-recorder',
    groupId: `links-test-${randomBytes(6).toString('hex')}`,
    topic,
    log,
  });
  await subscriber.run(async (event) => {
    events.push(event);
    for (const w of waiters) w();
  });
  const isMarker = (e: ReceivedEvent): boolean => e.headers[MARKER_HEADER] !== undefined;
  const real = (): ReceivedEvent[] => events.filter((e) => !isMarker(e));
  /** Resolves once `done()` holds, checked after every arriving message. */
  const until = (done: () => boolean, what: string, timeoutMs = 20_000): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (!done()) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`${what} on ${topic}: ${real().length} events so far`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  return {
    events,
    async waitFor(count, timeoutMs) {
      await until(() => real().length >= count, `expected ${count} events`, timeoutMs);
      return real();
    },
    async waitForKey(key, timeoutMs) {
      const first = (): ReceivedEvent | undefined => real().find((e) => e.key === key);
      await until(() => first() !== undefined, `expected an event of ${key}`, timeoutMs);
      return first()!;
    },
    async settled(keys) {
      const marker = randomBytes(6).toString('hex');
      const unique = [...new Set(keys)];
      await publisher.publish(
        topic,
        unique.map((key) => ({ key, value: '{}', headers: { [MARKER_HEADER]: marker } })),
      );
      const arrived = (): number => events.filter((e) => e.headers[MARKER_HEADER] === marker).length;
      await until(() => arrived() === unique.length, 'markers did not arrive');
      return real();
    },
    async close() {
      await Promise.all([subscriber.close(), publisher.close()]);
    },
  };
}
