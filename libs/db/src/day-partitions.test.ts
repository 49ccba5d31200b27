import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { DayPartitions } from './day-partitions';
import { Db } from './pool';

const log = pino({ level: 'silent' });
const at = (iso: string): Date => new Date(iso);

describe('day partitions (real Postgres)', () => {
  let database: TestDatabase;
  let db: Db;
  let other: Db;

  const partitions = async (): Promise<string[]> =>
    (
      await db.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass ORDER BY 1`,
      )
    ).map((r) => r.name);

  beforeAll(async () => {
    database = await createTestDatabase('dayparts');
    const setup = new Db({ url: database.url, schema: 'public', log });
    await setup.query('CREATE SCHEMA parts');
    await setup.close();
    db = new Db({ url: database.url, schema: 'parts', log });
    other = new Db({ url: database.url, schema: 'parts', log });
    await db.query(`CREATE TABLE events (id bigint NOT NULL, at timestamptz NOT NULL, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)`);
    await db.query('CREATE TABLE held (at timestamptz NOT NULL)');
    await db.query(`CREATE TABLE monthly (id bigint NOT NULL, at timestamptz NOT NULL, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)`);
    await db.query('CREATE TABLE monthly_default PARTITION OF monthly DEFAULT');
  });

  afterAll(async () => {
    await db?.close();
    await other?.close();
    await database?.drop();
  });

  beforeEach(async () => {
    for (const name of await partitions()) await db.query(`DROP TABLE ${name}`);
    await db.query('DELETE FROM held');
  });

  const keeper = (on: Db, retentionDays = 3) =>
    new DayPartitions(on, [{ table: 'events', retentionDays, holdWhile: 'SELECT 1 FROM held WHERE at < $1' }], 2);

  it('creates today and the days ahead once, as UTC days that take their rows', async () => {
    const first = await keeper(db).upkeep(at('2026-11-27T23:30:00Z'));
    expect(first).toEqual({ created: ['events_p20261127', 'events_p20261128', 'events_p20261129'], dropped: [] });
    await expect(keeper(db).upkeep(at('2026-11-27T23:59:00Z'))).resolves.toEqual({ created: [], dropped: [] });
    await db.query(`INSERT INTO events VALUES (1, '2026-11-27T23:59:59.999Z'), (2, '2026-11-28T00:00:00Z'), (3, '2026-11-29T23:59:59Z')`);
    const placed = await db.query<{ id: string; part: string }>('SELECT id::text, tableoid::regclass::text AS part FROM events ORDER BY id');
    expect(placed).toEqual([
      { id: '1', part: 'events_p20261127' },
      { id: '2', part: 'events_p20261128' },
      { id: '3', part: 'events_p20261129' },
    ]);
  });

  it('drops only days whose every row is past the retention, keeping their neighbours and their rows', async () => {
    await keeper(db).upkeep(at('2026-11-20T12:00:00Z'));
    await keeper(db).upkeep(at('2026-11-23T12:00:00Z'));
    await db.query(`INSERT INTO events VALUES (1, '2026-11-20T10:00:00Z'), (2, '2026-11-21T00:00:00Z'), (3, '2026-11-24T00:00:00Z')`);
    // On the 24th with three days' retention: the 20th ended on the 21st, three days ago, so it goes; the 21st stays.
    const run = await keeper(db).upkeep(at('2026-11-24T00:00:01Z'));
    expect(run.dropped).toEqual(['events_p20261120']);
    expect(await partitions()).toContain('events_p20261121');
    await expect(db.query('SELECT id::text FROM events ORDER BY id')).resolves.toEqual([{ id: '2' }, { id: '3' }]);
  });

  it('keeps an expired day while the hold query finds something in it, and drops it once that is gone', async () => {
    await keeper(db).upkeep(at('2026-11-20T12:00:00Z'));
    await db.query(`INSERT INTO held VALUES ('2026-11-20T15:00:00Z')`);
    await expect(keeper(db).upkeep(at('2026-11-25T00:00:00Z'))).resolves.toMatchObject({ dropped: [] });
    expect(await partitions()).toContain('events_p20261120');
    await db.query('DELETE FROM held');
    await expect(keeper(db).upkeep(at('2026-11-25T00:00:00Z'))).resolves.toMatchObject({ dropped: ['events_p20261120', 'events_p20261121'] });
  });

  it('is safe with two replicas at once: each day is created once and dropped once, and neither fails', async () => {
    await keeper(db).upkeep(at('2026-11-10T12:00:00Z'));
    const now = at('2026-11-20T12:00:00Z');
    const runs = await Promise.all([keeper(db).upkeep(now), keeper(other).upkeep(now), keeper(db).upkeep(now), keeper(other).upkeep(now)]);
    const created = runs.flatMap((r) => r.created).sort();
    const dropped = runs.flatMap((r) => r.dropped).sort();
    // A replica that finds the table taken leaves it; whatever one run left, the next finishes.
    const settle = await keeper(other).upkeep(now);
    expect([...created, ...settle.created].sort()).toEqual(['events_p20261120', 'events_p20261121', 'events_p20261122']);
    expect([...dropped, ...settle.dropped].sort()).toEqual(['events_p20261110', 'events_p20261111', 'events_p20261112']);
    expect(await partitions()).toEqual(['events_p20261120', 'events_p20261121', 'events_p20261122']);
  });

  describe('by month', () => {
    const monthly = async (): Promise<string[]> =>
      (
        await db.query<{ name: string }>(
          `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'monthly'::regclass ORDER BY 1`,
        )
      ).map((r) => r.name);
    const keeper = (on: Db, retentionDays = 30) => new DayPartitions(on, [{ table: 'monthly', unit: 'month', retentionDays }], 7);

    beforeEach(async () => {
      for (const name of await monthly()) if (name !== 'monthly_default') await db.query(`DROP TABLE ${name}`);
    });

    it('creates this month, and the next one once the days ahead reach it; rows of each land in their month', async () => {
      await expect(keeper(db).upkeep(at('2026-11-20T12:00:00Z'))).resolves.toEqual({ created: ['monthly_p202611'], dropped: [] });
      await expect(keeper(db).upkeep(at('2026-11-24T00:00:00Z'))).resolves.toEqual({ created: ['monthly_p202612'], dropped: [] });
      await db.query(`INSERT INTO monthly VALUES (1, '2026-11-30T23:59:59Z'), (2, '2026-12-01T00:00:00Z'), (3, '2026-10-31T00:00:00Z')`);
      const placed = await db.query<{ id: string; part: string }>('SELECT id::text, tableoid::regclass::text AS part FROM monthly ORDER BY id');
      expect(placed).toEqual([
        { id: '1', part: 'monthly_p202611' },
        { id: '2', part: 'monthly_p202612' },
        // Older than every month kept: the DEFAULT partition takes it, and the upkeep never drops that one.
        { id: '3', part: 'monthly_default' },
      ]);
      await db.query('DELETE FROM monthly');
    });

    it('drops a month once its end is past the retention, never the DEFAULT partition', async () => {
      await keeper(db).upkeep(at('2026-09-10T00:00:00Z'));
      await keeper(db).upkeep(at('2026-10-10T00:00:00Z'));
      await db.query(`INSERT INTO monthly VALUES (1, '2026-09-15T00:00:00Z'), (2, '2026-10-31T23:00:00Z')`);
      // September ended on October 1st: 30 days later (October 31st) it goes; October stays until November 30th.
      await expect(keeper(db).upkeep(at('2026-10-30T23:00:00Z'))).resolves.toEqual({ created: ['monthly_p202611'], dropped: [] });
      await expect(keeper(db).upkeep(at('2026-10-31T00:00:00Z'))).resolves.toEqual({ created: [], dropped: ['monthly_p202609'] });
      expect(await monthly()).toEqual(['monthly_default', 'monthly_p202610', 'monthly_p202611']);
      await expect(db.query('SELECT id::text FROM monthly')).resolves.toEqual([{ id: '2' }]);
      await db.query('DELETE FROM monthly');
    });
  });
});
