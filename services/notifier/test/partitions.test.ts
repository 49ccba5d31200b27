import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { DayPartitions, Db, migrate } from '@pl/db';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { deliveryPartitions, DeliveryRepository } from '../src/data/delivery.repository';
import { eventPartitions, EventRepository } from '../src/data/event.repository';
import { NOTIFIER_SCHEMA } from '../src/data/migrate';
import type { EventFilter, EventRecord } from '../src/domain/events';
import type { DeliveryRecord, ListFilter } from '../src/domain/delivery';
import { PARTITION_DAYS_AHEAD } from '../src/entry/background/partition-upkeep';

const log = pino({ level: 'silent' });
const MIGRATIONS = join(__dirname, '..', 'migrations');
const PARTITIONS_MIGRATION = '20261128120000200_time_partitions.sql';
const at = (iso: string): Date => new Date(iso);

/**
 * The notifier's time partitions (ADR 22) on a real Postgres: the migration moves every row, the upkeep keeps
 * partitions ahead and drops only those wholly past retention, and the events API and the delivery log read
 * across partition edges. Each test works in a span of dates of its own, in the past, so none drops another's.
 */
describe('time partitions of events, deliveries and attempts', () => {
  let database: TestDatabase;
  let db: Db;
  let other: Db;
  let events: EventRepository;
  let deliveries: DeliveryRepository;

  const partitionsOf = async (table: string): Promise<string[]> =>
    (
      await db.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1`,
        [table],
      )
    ).map((r) => r.name);
  const keeper = (on: Db, eventDays = 30, deliveryDays = 90) =>
    new DayPartitions(on, [eventPartitions(eventDays), ...deliveryPartitions(deliveryDays)], PARTITION_DAYS_AHEAD);

  const addEvent = async (merchantId: string, occurredAt: string, id = randomUUID()): Promise<string> => {
    await db.query(
      `INSERT INTO inbox_events (event_id, payload, type, merchant_id, shop_id, payment_link_id, livemode, occurred_at, body)
       VALUES ($1::uuid, '{}', 'payment.succeeded', $2, 7, $3, true, $4, convert_to($1::text, 'UTF8'))`,
      [id, merchantId, randomUUID(), occurredAt],
    );
    return id;
  };
  const addDelivery = async (
    merchantId: string,
    createdAt: string,
    status: 'pending' | 'succeeded' = 'succeeded',
    eventId: string = randomUUID(),
  ) => {
    const id = randomUUID();
    await db.query(
      `INSERT INTO deliveries (id, event_id, webhook_id, event, merchant_id, shop_id, payment_link_id, livemode, body, status, next_attempt_at,
                               attempts_made, created_at)
       VALUES ($1, $2, $3, 'payment.succeeded', $4, 7, $5, true, '\\x7b7d', $6::text, CASE WHEN $6::text = 'pending' THEN now() + interval '1 day' END, 1, $7)`,
      [id, eventId, `evt_${eventId}`, merchantId, randomUUID(), status, createdAt],
    );
    await db.query(
      `INSERT INTO delivery_attempts (delivery_id, series, attempt, at, duration_ms, status_code) VALUES ($1, 1, 1, $2::timestamptz + interval '1 second', 5, 200)`,
      [id, createdAt],
    );
    return id;
  };

  /** Every event of the merchant through the events API's pages of `limit`, following each page's cursor. */
  const allEvents = async (merchantId: string, limit = 1): Promise<EventRecord[]> => {
    const seen: EventRecord[] = [];
    let after: EventFilter['after'] = null;
    for (;;) {
      const page = await events.list({ mode: 'live', merchantId, type: null, shopId: null, paymentLinkId: null, after, limit });
      seen.push(...page.items);
      const last = page.items.at(-1);
      if (!page.hasMore || !last) return seen;
      after = { occurredAtUs: last.occurredAtUs, seq: last.seq };
    }
  };
  /** Every delivery of the merchant through the delivery log's pages of `limit`. */
  const allDeliveries = async (merchantId: string, limit = 1): Promise<DeliveryRecord[]> => {
    const seen: DeliveryRecord[] = [];
    let beforeSeq: ListFilter['beforeSeq'] = null;
    for (;;) {
      const page = await deliveries.list({
        mode: 'live',
        merchantId,
        shopId: null,
        paymentLinkId: null,
        status: null,
        beforeSeq,
        limit,
        attemptsShown: 8,
      });
      seen.push(...page.items);
      const last = page.items.at(-1);
      if (!page.hasMore || !last) return seen;
      beforeSeq = last.seq;
    }
  };

  // Rows written before the partitioning, moved by its migration.
  const before = { merchant: randomUUID(), events: [] as string[], deliveries: [] as string[], seq: { events: 0n, deliveries: 0n } };

  beforeAll(async () => {
    database = await createTestDatabase('notifparts');
    const upTo = mkdtempSync(join(tmpdir(), 'notifier-migrations-'));
    try {
      for (const file of readdirSync(MIGRATIONS).filter((f) => f < PARTITIONS_MIGRATION)) copyFileSync(join(MIGRATIONS, file), join(upTo, file));
      await migrate({ url: database.url, schema: NOTIFIER_SCHEMA, dir: upTo, log });
    } finally {
      rmSync(upTo, { recursive: true, force: true });
    }
    db = new Db({ url: database.url, schema: NOTIFIER_SCHEMA, log });
    other = new Db({ url: database.url, schema: NOTIFIER_SCHEMA, log });
    // An event 40 days old and one of an hour ago; a delivery of two months ago (with its attempt) and one of now.
    for (const ago of ['40 days', '1 hour']) {
      const id = randomUUID();
      await db.query(
        `INSERT INTO inbox_events (event_id, payload, type, merchant_id, shop_id, payment_link_id, livemode, occurred_at, body)
         VALUES ($1::uuid, '{}', 'payment.succeeded', $2, 7, $3, true, now() - $4::interval, convert_to($1::text, 'UTF8'))`,
        [id, before.merchant, randomUUID(), ago],
      );
      before.events.push(id);
    }
    for (const [ago, eventId] of [
      ['62 days', null],
      ['1 minute', before.events[1]],
    ] as const) {
      const id = randomUUID();
      await db.query(
        `INSERT INTO deliveries (id, event_id, webhook_id, event, merchant_id, shop_id, payment_link_id, livemode, body, status, next_attempt_at,
                                 attempts_made, created_at)
         VALUES ($1, $2, $3, $4, $5, 7, $6, true, '\\x7b7d', 'succeeded', NULL, 1, now() - $7::interval)`,
        [id, eventId, `evt_${id}`, eventId ? 'payment.succeeded' : 'webhook.test', before.merchant, eventId ? randomUUID() : null, ago],
      );
      await db.query(
        `INSERT INTO delivery_attempts (delivery_id, series, attempt, at, duration_ms, status_code) VALUES ($1, 1, 1, now() - $2::interval, 5, 200)`,
        [id, ago],
      );
      before.deliveries.push(id);
    }
    const [seqs] = await db.query<{ events: string; deliveries: string }>(
      'SELECT (SELECT max(seq) FROM inbox_events)::text AS events, (SELECT max(seq) FROM deliveries)::text AS deliveries',
    );
    before.seq = { events: BigInt(seqs!.events), deliveries: BigInt(seqs!.deliveries) };

    await migrate({ url: database.url, schema: NOTIFIER_SCHEMA, dir: MIGRATIONS, log });
    events = new EventRepository(db);
    deliveries = new DeliveryRepository(db);
  });

  afterAll(async () => {
    await db?.close();
    await other?.close();
    await database?.drop();
  });

  it('moves every row of the old tables into its partition, with its seq, and new rows number on from there', async () => {
    const eventRows = await db.query<{ event_id: string; part: string; seq: string }>(
      'SELECT event_id, tableoid::regclass::text AS part, seq::text FROM inbox_events WHERE merchant_id = $1 ORDER BY occurred_at',
      [before.merchant],
    );
    expect(eventRows.map((r) => r.event_id)).toEqual(before.events);
    // Each in the partition of its own day (the migration made one for every day that held an event).
    for (const r of eventRows) expect(r.part).toMatch(/^inbox_events_p\d{8}$/);
    expect(await allEvents(before.merchant)).toHaveLength(2);
    const moved = await allDeliveries(before.merchant);
    expect(moved.map((d) => d.id)).toEqual([...before.deliveries].reverse());
    for (const d of moved) expect(d.attempts).toEqual([expect.objectContaining({ series: 1, attempt: 1, statusCode: 200 })]);
    expect(moved[0]?.seq).toBe(before.seq.deliveries);

    const fresh = randomUUID();
    await addEvent(before.merchant, new Date().toISOString(), fresh);
    const [newest] = await allEvents(before.merchant);
    expect(newest?.eventId).toBe(fresh);
    expect(newest!.seq).toBeGreaterThan(before.seq.events);
    const [delivery] = await allDeliveries(before.merchant, 1);
    const next = await addDelivery(before.merchant, new Date().toISOString());
    const [latest] = await allDeliveries(before.merchant, 1);
    expect(latest?.id).toBe(next);
    expect(latest!.seq).toBeGreaterThan(delivery!.seq);
  });

  it('creates the days and months ahead once, and the next month once the days ahead reach it', async () => {
    const first = await keeper(db).upkeep(at('2025-03-10T12:00:00Z'));
    expect(first.created).toEqual([
      ...['10', '11', '12', '13', '14', '15', '16', '17'].map((d) => `inbox_events_p202503${d}`),
      'deliveries_p202503',
      'delivery_attempts_p202503',
    ]);
    await expect(keeper(db).upkeep(at('2025-03-10T23:59:59Z'))).resolves.toEqual({ created: [], dropped: [] });
    const later = await keeper(db).upkeep(at('2025-03-28T00:00:00Z'));
    expect(later.created).toEqual(expect.arrayContaining(['inbox_events_p20250404', 'deliveries_p202504', 'delivery_attempts_p202504']));
    expect(await partitionsOf('deliveries')).toEqual(expect.arrayContaining(['deliveries_p202503', 'deliveries_p202504']));
    // The stragglers' partition is there, and no upkeep touches it.
    expect(await partitionsOf('inbox_events')).toContain('inbox_events_default');
  });

  it('drops only what is wholly past its retention; the rest reads through both APIs across partition edges', async () => {
    const merchant = randomUUID();
    await keeper(db).upkeep(at('2025-03-10T00:00:00Z'));
    await keeper(db).upkeep(at('2025-03-28T00:00:00Z'));
    const gone = await addEvent(merchant, '2025-03-10T23:59:59Z');
    const kept = [
      await addEvent(merchant, '2025-03-11T00:00:00Z'),
      await addEvent(merchant, '2025-03-11T12:00:00Z'),
      await addEvent(merchant, '2025-03-12T00:00:01Z'),
      await addEvent(merchant, '2025-04-02T00:00:00Z'),
    ];
    const march = await addDelivery(merchant, '2025-03-31T23:59:59Z');
    const april = await addDelivery(merchant, '2025-04-01T00:00:00Z');

    // On April 10th with 30 days' retention: March 10th ended on the 11th, 30 days ago, so it goes; the 11th stays.
    const run = await keeper(db).upkeep(at('2025-04-10T00:00:00Z'));
    expect(run.dropped.filter((p) => p.startsWith('inbox_events'))).toEqual(['inbox_events_p20250310']);
    expect(run.dropped.filter((p) => !p.startsWith('inbox_events'))).toEqual([]);

    // Newest first, a page of one at a time: each cursor crosses into the next partition.
    expect((await allEvents(merchant)).map((e) => e.eventId)).toEqual([...kept].reverse());
    expect((await allEvents(merchant, 3)).map((e) => e.eventId)).toEqual([...kept].reverse());
    expect(await events.findById('live', kept[0]!)).toMatchObject({ eventId: kept[0], merchantId: merchant });
    expect(await events.findById('live', gone)).toBeNull();

    expect((await allDeliveries(merchant)).map((d) => d.id)).toEqual([april, march]);
    expect(await deliveries.findById('live', march, 8)).toMatchObject({ id: march, attempts: [expect.objectContaining({ statusCode: 200 })] });

    // On June 30th with 90 days' retention: March ended on April 1st, 90 days ago, so its month goes; April stays.
    const summer = await keeper(db).upkeep(at('2025-06-30T00:00:00Z'));
    expect(summer.dropped).toEqual(expect.arrayContaining(['deliveries_p202503', 'delivery_attempts_p202503']));
    expect(summer.dropped).not.toContain('deliveries_p202504');
    expect((await allDeliveries(merchant)).map((d) => d.id)).toEqual([april]);
    expect(await deliveries.findById('live', march, 8)).toBeNull();
    expect(await deliveries.findById('live', april, 8)).toMatchObject({ attempts: [expect.objectContaining({ attempt: 1 })] });
  });

  it('keeps a month while one of its deliveries is pending, and a day while a pending delivery needs its event', async () => {
    const merchant = randomUUID();
    await keeper(db).upkeep(at('2025-09-14T00:00:00Z'));
    const event = await addEvent(merchant, '2025-09-15T10:00:00Z');
    // Resent long after (a merchant's resend of an old delivery): pending again.
    const resent = await addDelivery(merchant, '2025-09-15T10:00:01Z', 'pending', event);

    const late = await keeper(db).upkeep(at('2026-01-15T00:00:00Z'));
    expect(late.dropped).not.toContain('deliveries_p202509');
    expect(late.dropped).not.toContain('delivery_attempts_p202509');
    expect(late.dropped).not.toContain('inbox_events_p20250915');
    expect(late.dropped).toContain('inbox_events_p20250914');
    expect(await deliveries.findById('live', resent, 8)).toMatchObject({ status: 'pending', attempts: [expect.objectContaining({ attempt: 1 })] });
    expect(await events.findById('live', event)).toMatchObject({ eventId: event });

    await db.query(`UPDATE deliveries SET status = 'succeeded', next_attempt_at = NULL WHERE id = $1`, [resent]);
    const after = await keeper(db).upkeep(at('2026-01-15T00:00:00Z'));
    expect(after.dropped).toEqual(expect.arrayContaining(['deliveries_p202509', 'delivery_attempts_p202509', 'inbox_events_p20250915']));
    expect(await deliveries.findById('live', resent, 8)).toBeNull();
  });

  it('is harmless with two replicas at once: each partition created once and dropped once, and none fails', async () => {
    await keeper(db).upkeep(at('2026-02-01T00:00:00Z'));
    const now = at('2026-05-20T00:00:00Z');
    const runs = await Promise.all([keeper(db).upkeep(now), keeper(other).upkeep(now), keeper(db).upkeep(now), keeper(other).upkeep(now)]);
    // A replica that finds a table taken leaves it; whatever one run left, the next finishes.
    const settle = await keeper(other).upkeep(now);
    const created = [...runs.flatMap((r) => r.created), ...settle.created];
    const dropped = [...runs.flatMap((r) => r.dropped), ...settle.dropped];
    expect(new Set(created).size).toBe(created.length);
    expect(new Set(dropped).size).toBe(dropped.length);
    expect(created).toEqual(
      expect.arrayContaining(['inbox_events_p20260520', 'inbox_events_p20260527', 'deliveries_p202605', 'delivery_attempts_p202605']),
    );
    // February ended on March 1st, 80 days before: its month stays (90 days); its days are gone (30).
    expect(dropped).toEqual(expect.arrayContaining(['inbox_events_p20260201', 'inbox_events_p20260208']));
    expect(dropped).not.toContain('deliveries_p202602');
    const days = await partitionsOf('inbox_events');
    expect(days.filter((d) => d.startsWith('inbox_events_p202602'))).toEqual([]);
    expect(days).toContain('inbox_events_p20260520');
    expect(await partitionsOf('deliveries')).toContain('deliveries_p202602');
  });
});
