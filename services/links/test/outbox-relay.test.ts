import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import pino from 'pino';
import { createEventPublisher, type EventPublisher } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { Db } from '@pl/db';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { createOutboxRelay } from '../src/app';
import { loadConfig } from '../src/config';
import { LINKS_SCHEMA, migrateLinks } from '../src/data/migrate';
import { insertOutboxEntry, OutboxRepository } from '../src/data/outbox.repository';
import { OutboxListener } from '../src/data/outbox.listener';
import { OutboxRelay } from '../src/entry/outbox/outbox-relay';
import { recordTopic } from './support/kafka-events';
import { apiKey, kafkaBrokersFromEnv, platform, startLinksSystem } from './support/links-system';
import { recordingLogger } from './support/log-recorder';

const silent = pino({ level: 'silent' });
// A Kafka consumer group's first join takes about three seconds on the mock cluster.
jest.setTimeout(60_000);

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const unpublished = async (db: Db): Promise<number> =>
  Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM outbox WHERE published_at IS NULL'))[0]?.n);

describe('outbox relay', () => {
  it('keeps events committed while Kafka is unreachable and publishes each exactly once when a relay can reach it', async () => {
    const relayLog = recordingLogger('debug');
    const system = await startLinksSystem(
      'linksrelaydown',
      // This replica's relay points at a closed port: Kafka is "down" for it.
      { KAFKA_BROKERS: `127.0.0.1:${await closedPort()}`, OUTBOX_PUBLISH_TIMEOUT_MS: '300', OUTBOX_POLL_INTERVAL_MS: '50', OUTBOX_MAX_BACKOFF_MS: '200' },
      relayLog.log,
    );
    const kafka = await recordTopic(system.topic);
    let healthy: OutboxRelay | undefined;
    try {
      const merchant = randomUUID();
      const shopId = await system.createShop(merchant);
      const links = await Promise.all(Array.from({ length: 20 }, () => system.createLink(apiKey(merchant), { shop_id: shopId })));
      await Promise.all(
        links.map((l) =>
          system.bus.request(subjects.linksSettle, { provider: 'sandbox', gateway_payment_id: `sbx_${l.id}`, status: 'paid' }, platform),
        ),
      );

      const failures = (): number => relayLog.lines.filter((l) => /cannot publish/.test(l.msg)).length;
      await relayLog.until(() => failures() >= 3);
      // One warning for the outage; the retries after it are debug lines.
      expect(relayLog.lines.filter((l) => l.level === 40 && /cannot publish/.test(l.msg))).toHaveLength(1);
      expect(await unpublished(system.linksDb)).toBe(20);

      // Another replica whose relay reaches Kafka publishes them, while the first keeps failing beside it.
      const config = loadConfig({
        DATABASE_URL: system.databaseUrl,
        KAFKA_BROKERS: kafkaBrokersFromEnv(),
        PAYMENT_EVENTS_TOPIC: system.topic,
        OUTBOX_POLL_INTERVAL_MS: '50',
      });
      healthy = createOutboxRelay(config, system.linksDb, silent);
      healthy.start();
      await kafka.waitFor(20);
      const rows = await system.linksDb.query<{ id: string; message_key: string }>('SELECT id, message_key FROM outbox');
      const events = await kafka.settled(links.map((l) => l.id));
      expect(events).toHaveLength(20);
      expect(events.map((e) => e.headers['event-id']).sort()).toEqual(rows.map((r) => r.id).sort());
      expect(events.map((e) => e.key).sort()).toEqual(links.map((l) => l.id).sort());
      for (const e of events) expect(JSON.parse(e.value)).toMatchObject({ event_id: e.headers['event-id'], data: { id: e.key } });
      expect(await unpublished(system.linksDb)).toBe(0);
    } finally {
      await healthy?.stop();
      await kafka.close();
      await system.stop();
    }
  });

  describe('killed between publishing and marking', () => {
    let database: TestDatabase;
    let db: Db;

    beforeAll(async () => {
      database = await createTestDatabase('linksrelaycrash');
      await migrateLinks(database.url, silent);
      db = new Db({ url: database.url, schema: LINKS_SCHEMA, log: silent });
    });

    afterAll(async () => {
      await db?.close();
      await database?.drop();
    });

    it('publishes the batch again with the same event ids: at-least-once, nothing lost', async () => {
      const topic = `payment-events-crash-${randomUUID()}`;
      const kafka = await recordTopic(topic);
      const entries = Array.from({ length: 5 }, (_, i) => {
        const id = randomUUID();
        const key = randomUUID();
        return { id, topic, key, payload: { event_id: id, n: i }, headers: { 'event-id': id, 'content-type': 'application/json' } };
      });
      await db.transaction(async (client) => {
        for (const e of entries) await insertOutboxEntry(client, e);
      });

      // The relay "dies" right after the brokers acknowledged its first batch, before the mark commits.
      const real: EventPublisher = createEventPublisher({ brokers: kafkaBrokersFromEnv().split(','), clientId: 'links-crash-test', log: silent });
      let publishes = 0;
      const crashing: EventPublisher = {
        async publish(t, messages) {
          await real.publish(t, messages);
          publishes += 1;
          if (publishes === 1) throw new Error('killed after publish, before mark');
        },
        close: () => real.close(),
      };
      const relay = new OutboxRelay({
        outbox: new OutboxRepository(db),
        publisher: crashing,
        wakeups: (wake) => new OutboxListener(database.url, wake, silent),
        pollIntervalMs: 50,
        batchSize: 100,
        publishTimeoutMs: 10_000,
        maxBackoffMs: 100,
        log: silent,
      });
      try {
        relay.start();
        await kafka.waitFor(10);
        const events = await kafka.settled(entries.map((e) => e.key));
        expect(await unpublished(db)).toBe(0);
        expect(publishes).toBe(2);
        // Every event exactly twice, both copies with the same event id: the notifier stores by event id.
        for (const e of entries) {
          const copies = events.filter((m) => m.key === e.key);
          expect(copies.map((m) => m.headers['event-id'])).toEqual([e.id, e.id]);
          expect(copies.map((m) => JSON.parse(m.value))).toEqual([e.payload, e.payload]);
        }
        expect(events).toHaveLength(10);
      } finally {
        await relay.stop();
        await kafka.close();
      }
    });

    it('wakes on the insert notification without waiting for its poll', async () => {
      const topic = `payment-events-notify-${randomUUID()}`;
      const kafka = await recordTopic(topic);
      const relay = new OutboxRelay({
        outbox: new OutboxRepository(db),
        publisher: createEventPublisher({ brokers: kafkaBrokersFromEnv().split(','), clientId: 'links-notify-test', log: silent }),
        wakeups: (wake) => new OutboxListener(database.url, wake, silent),
        // A poll this long would time the test out: only the notification can wake the relay in time.
        pollIntervalMs: 600_000,
        batchSize: 100,
        publishTimeoutMs: 10_000,
        maxBackoffMs: 600_000,
        log: silent,
      });
      try {
        relay.start();
        const insert = async (): Promise<string> => {
          const id = randomUUID();
          await db.transaction((client) => insertOutboxEntry(client, { id, topic, key: id, payload: { event_id: id }, headers: { 'event-id': id } }));
          return id;
        };
        // The first row may go out with the relay's first pass; once it has, the relay listens and sleeps
        // for ten minutes, so the second can only go out because its insert notified the relay.
        const first = await insert();
        await kafka.waitFor(1);
        const second = await insert();
        const events = await kafka.waitFor(2);
        expect(events.map((e) => e.headers['event-id'])).toEqual([first, second]);
      } finally {
        await relay.stop();
        await kafka.close();
      }
    });
  });
});
