import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { createEventPublisher, type EventPublisher } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { Db } from '@pl/db';
import { createTestDatabase, eventually, freePort, type TestDatabase } from '@pl/testing';
import { createOutboxRelay } from '../src/app';
import { loadConfig } from '../src/config';
import { LINKS_SCHEMA, migrateLinks } from '../src/data/migrate';
import { insertOutboxEntry, OutboxRepository } from '../src/data/outbox.repository';
import { OutboxRelay } from '../src/entry/outbox/outbox-relay';
import { recordTopic } from './support/kafka-events';
import { apiKey, kafkaBrokersFromEnv, platform, startLinksSystem } from './support/links-system';
import { recordingLogger } from './support/log-recorder';

const silent = pino({ level: 'silent' });
// A Kafka consumer group's first join takes about three seconds on the mock cluster.
jest.setTimeout(60_000);

const unpublished = async (db: Db): Promise<number> => Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM outbox_pending'))[0]?.n);

describe('outbox relay', () => {
  it('keeps events committed while Kafka is unreachable and publishes each exactly once when a relay can reach it', async () => {
    const relayLog = recordingLogger('debug');
    const system = await startLinksSystem(
      'linksrelaydown',
      // This replica's relay points at a closed port: Kafka is "down" for it.
      {
        KAFKA_BROKERS: `127.0.0.1:${await freePort()}`,
        OUTBOX_PUBLISH_TIMEOUT_MS: '300',
        OUTBOX_POLL_INTERVAL_MS: '50',
        OUTBOX_MAX_BACKOFF_MS: '200',
      },
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

      const failures = (): number => relayLog.lines.filter((l) => l.msg.includes('cannot publish')).length;
      await relayLog.until(() => failures() >= 3);
      // One warning for the outage; the retries after it are debug lines.
      expect(relayLog.lines.filter((l) => l.level === 40 && l.msg.includes('cannot publish'))).toHaveLength(1);
      expect(await unpublished(system.linksDb)).toBe(20);

      // Another replica whose relay reaches Kafka publishes them, while the first keeps failing beside it.
      const config = loadConfig({
        DATABASE_URL: system.databaseUrl,
        KAFKA_BROKERS: kafkaBrokersFromEnv(),
        PAYMENT_EVENTS_TOPIC: system.topic,
        OUTBOX_POLL_INTERVAL_MS: '50',
        // The poll leaves rows younger than this to the replica that wrote them.
        OUTBOX_PUBLISH_TIMEOUT_MS: '300',
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

  it('publishes a payment the moment it is settled, without waiting for the relay to poll', async () => {
    // A poll this long would time the test out: only the settle's own wake-up can get the event out in time.
    const system = await startLinksSystem('linksrelaywake', { OUTBOX_POLL_INTERVAL_MS: '600000' });
    const kafka = await recordTopic(system.topic);
    try {
      const merchant = randomUUID();
      const shopId = await system.createShop(merchant);
      for (const n of [1, 2]) {
        const link = await system.createLink(apiKey(merchant), { shop_id: shopId });
        await system.bus.request(subjects.linksSettle, { provider: 'sandbox', gateway_payment_id: `sbx_${link.id}`, status: 'paid' }, platform);
        const events = await kafka.waitFor(n);
        expect(events[n - 1]?.key).toBe(link.id);
      }
      // Published events are marked in the background, after Kafka's acknowledgement: nothing to await but the rows.
      await eventually(async () => (await unpublished(system.linksDb)) === 0, 'every published event marked', 10_000, 20);
    } finally {
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

    it('leaves a row younger than the publish time-out to the process that wrote it, and claims it after', async () => {
      const id = randomUUID();
      await db.transaction((client) =>
        insertOutboxEntry(client, { id, topic: 't', key: id, payload: { event_id: id }, headers: { 'event-id': id } }),
      );
      const outbox = new OutboxRepository(db);
      const published: string[] = [];
      const publish = async (entries: { id: string }[]): Promise<void> => {
        published.push(...entries.map((e) => e.id));
      };
      // The writer's own publish may still be in flight for up to the time-out: the poll must not race it.
      expect(await outbox.publishBatch(100, 60_000, publish)).toBe(0);
      expect(published).toEqual([]);
      const [row] = await db.query<{ age_ms: number }>(
        `SELECT (EXTRACT(EPOCH FROM now() - created_at) * 1000)::float8 AS age_ms FROM outbox WHERE id = $1`,
        [id],
      );
      expect(await outbox.publishBatch(100, Math.max(0, (row?.age_ms ?? 0) - 1), publish)).toBe(1);
      expect(published).toEqual([id]);
      expect(await unpublished(db)).toBe(0);
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
        pollIntervalMs: 50,
        batchSize: 100,
        // Also how old a row must be before the poll takes it: these rows were written just before.
        publishTimeoutMs: 500,
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
  });
});
