import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { DayPartitions, Db } from '@pl/db';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { LINKS_SCHEMA, migrateLinks } from '../src/data/migrate';
import { insertOutboxEntry, OutboxRepository, outboxPartitions } from '../src/data/outbox.repository';

const log = pino({ level: 'silent' });
const DAY_MS = 86_400_000;

/** The outbox record's day partitions against the real schema: the queue's trigger, and the hold on a queued day. */
describe('outbox partitions', () => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase('outboxparts');
    await migrateLinks(database.url, log);
    db = new Db({ url: database.url, schema: LINKS_SCHEMA, log });
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const days = async (): Promise<string[]> =>
    (
      await db.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'outbox'::regclass ORDER BY 1`,
      )
    ).map((r) => r.name);

  it('queues every event written with its record, and keeps a day past its retention while one of its events is queued', async () => {
    // The migration made today and a week ahead; an event of ten days ago needs its own day, as one kept since then.
    const now = new Date();
    const old = new Date(now.getTime() - 10 * DAY_MS);
    const oldDay = `outbox_p${old.toISOString().slice(0, 10).replaceAll('-', '')}`;
    const from = `${old.toISOString().slice(0, 10)} 00:00:00+00`;
    const to = `${new Date(old.getTime() + DAY_MS).toISOString().slice(0, 10)} 00:00:00+00`;
    await db.query(`CREATE TABLE ${oldDay} PARTITION OF outbox FOR VALUES FROM ('${from}') TO ('${to}')`);
    const queued = randomUUID();
    await db.query(`INSERT INTO outbox (id, topic, message_key, payload, created_at) VALUES ($1, 't', 'old-link', '{}', $2)`, [queued, old]);
    const fresh = { id: randomUUID(), topic: 't', key: 'new-link', payload: { event: 'payment_link.expired' }, headers: {} };
    await db.transaction((client) => insertOutboxEntry(client, fresh));
    await expect(new OutboxRepository(db).backlog()).resolves.toMatchObject({ rows: 2 });

    const keeper = new DayPartitions(db, [outboxPartitions(7)], 7);
    await expect(keeper.upkeep(now)).resolves.toEqual({ created: [], dropped: [] });
    expect(await days()).toContain(oldDay);

    // Published (off the queue): the day goes with its record; today's event and its record stay.
    await new OutboxRepository(db).markPublished([queued]);
    await expect(keeper.upkeep(now)).resolves.toEqual({ created: [], dropped: [oldDay] });
    await expect(db.query('SELECT id FROM outbox ORDER BY id')).resolves.toEqual([{ id: fresh.id }]);
    await expect(db.query('SELECT id FROM outbox_pending')).resolves.toEqual([{ id: fresh.id }]);
  });
});
