import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Db } from '@pl/db';
import { createMetricsRegistry } from '@pl/telemetry';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { LINKS_SCHEMA, migrateLinks } from '../src/data/migrate';
import { insertLinkStatement } from '../src/data/link.repository';
import { LinkInserts } from '../src/data/link-inserts';
import { sampleNewLink } from '../src/domain/sample-link.fixture';

jest.setTimeout(30_000);

/** Group commit of creates: many links per statement under load, each with its own row and its own outcome. */
describe('LinkInserts', () => {
  const log = pino({ level: 'silent' });
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase('linkinserts');
    await migrateLinks(database.url, log);
    db = new Db({ url: database.url, schema: LINKS_SCHEMA, log, prepare: true, max: 4 });
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const batchSizes = async (metrics: ReturnType<typeof createMetricsRegistry>): Promise<{ sum: number; count: number }> => {
    const metric = await metrics.getSingleMetric('links_insert_batch_size')!.get();
    const value = (name: string): number => metric.values.find((v) => (v as { metricName?: string }).metricName === name)?.value ?? 0;
    return { sum: value('links_insert_batch_size_sum'), count: value('links_insert_batch_size_count') };
  };

  it('writes creates made together in fewer statements than links, each link returned as it was asked for', async () => {
    const metrics = createMetricsRegistry('links-test');
    const inserts = new LinkInserts(db, insertLinkStatement, metrics);
    const merchantId = randomUUID();
    const asked = Array.from({ length: 60 }, (_, i) => sampleNewLink({ merchantId, shopId: 7, orderId: `order-${i}`, livemode: i % 2 === 0 }));

    const rows = await Promise.all(asked.map((l) => inserts.insert(l)));

    expect(rows.map((r) => [r.id, r.order_id, Number(r.amount), r.livemode])).toEqual(asked.map((l) => [l.id, l.orderId, l.amount, l.livemode]));
    const stored = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_links WHERE merchant_id = $1', [merchantId]);
    expect(stored[0]?.n).toBe(60);
    const sizes = await batchSizes(metrics);
    expect(sizes.sum).toBe(60);
    // Added in one turn of the event loop, they share statements: the first alone, the rest together.
    expect(sizes.count).toBeLessThan(60);
  });

  it('fails only the bad link of a batch; the others are created', async () => {
    const inserts = new LinkInserts(db, insertLinkStatement);
    const merchantId = randomUUID();
    const good = Array.from({ length: 5 }, (_, i) => sampleNewLink({ merchantId, shopId: 7, orderId: `good-${i}` }));
    // amount > 0 is a CHECK of the table: this row alone breaks the batch's statement.
    const bad = sampleNewLink({ merchantId, shopId: 7, orderId: 'bad', amount: 0, payerAmount: 0, merchantCredit: 0, platformRevenue: 0 });

    const outcomes = await Promise.allSettled([...good, bad].map((l) => inserts.insert(l)));

    expect(outcomes.slice(0, 5).map((o) => o.status)).toEqual(Array(5).fill('fulfilled'));
    expect(outcomes[5]).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ code: '23514' }) });
    const stored = await db.query<{ order_id: string }>('SELECT order_id FROM payment_links WHERE merchant_id = $1 ORDER BY order_id', [merchantId]);
    expect(stored.map((r) => r.order_id)).toEqual(good.map((l) => l.orderId));
  });

  it('writes a lone create by itself at once', async () => {
    const metrics = createMetricsRegistry('links-test');
    const inserts = new LinkInserts(db, insertLinkStatement, metrics);
    const link = sampleNewLink({ merchantId: randomUUID(), shopId: 7 });

    const row = await inserts.insert(link);

    expect(row.id).toBe(link.id);
    expect(await batchSizes(metrics)).toEqual({ sum: 1, count: 1 });
  });
});
