import { randomUUID } from 'node:crypto';
import { Db } from '@pl/db';
import { createLogger, createMetricsRegistry } from '@pl/telemetry';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { instrumentDeliveries } from '../src/data/delivery-metrics';
import { DeliveryRepository } from '../src/data/delivery.repository';
import { migrateNotifier, NOTIFIER_SCHEMA } from '../src/data/migrate';
import type { AttemptResult, AttemptVerdict, ClaimedDelivery, DeliveryQueue } from '../src/domain/delivery';

const log = createLogger('test', 'silent');
let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase('notifier-metrics');
  await migrateNotifier(database.url, log);
  db = new Db({ url: database.url, schema: NOTIFIER_SCHEMA, log });
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

const sample = (text: string, name: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

test('webhook_queue_oldest_due_age_seconds is how long the longest-due pending delivery has waited, 0 when none is due', async () => {
  const metrics = createMetricsRegistry('notifier');
  const deliveries = new DeliveryRepository(db);
  instrumentDeliveries(deliveries, db, metrics);
  expect(sample(await metrics.metrics(), 'webhook_queue_oldest_due_age_seconds')).toBe(0);

  const [due, later] = [randomUUID(), randomUUID()];
  for (const id of [due, later]) {
    await deliveries.addTestDelivery({ id, webhookId: `msg_${id}`, merchantId: randomUUID(), shopId: 1, body: Buffer.from('{}') });
  }
  await db.query(`UPDATE deliveries SET next_attempt_at = now() - interval '120 seconds' WHERE id = $1`, [due]);
  await db.query(`UPDATE deliveries SET next_attempt_at = now() + interval '1 hour' WHERE id = $1`, [later]);
  const age = sample(await metrics.metrics(), 'webhook_queue_oldest_due_age_seconds') ?? 0;
  expect(age).toBeGreaterThanOrEqual(120);
  expect(age).toBeLessThan(150);

  // A delivery that is not pending any more (here: failed for good) is not waiting.
  await db.query(`UPDATE deliveries SET status = 'failed', next_attempt_at = NULL WHERE id = $1`, [due]);
  expect(sample(await metrics.metrics(), 'webhook_queue_oldest_due_age_seconds')).toBe(0);
});

test('webhook_deliveries_exhausted_total counts the attempts recorded with a failed verdict, and only those', async () => {
  const metrics = createMetricsRegistry('notifier');
  const recorded: AttemptVerdict[] = [];
  const inner: DeliveryQueue = {
    claimDue: () => Promise.resolve({ claims: [], seen: 0 }),
    release: () => Promise.resolve(),
    recordAttempt: (_c, _e, _r, verdict) => {
      recorded.push(verdict);
      return Promise.resolve(2);
    },
  };
  const queue = instrumentDeliveries(inner, db, metrics);
  const claim = { id: randomUUID() } as ClaimedDelivery;
  const result = { ok: false } as AttemptResult;
  expect(await queue.recordAttempt(claim, null, result, { status: 'pending', nextAttemptAt: new Date() })).toBe(2);
  await queue.recordAttempt(claim, null, result, { status: 'succeeded' });
  expect(sample(await metrics.metrics(), 'webhook_deliveries_exhausted_total')).toBe(0);
  await queue.recordAttempt(claim, null, result, { status: 'failed' });
  expect(sample(await metrics.metrics(), 'webhook_deliveries_exhausted_total')).toBe(1);
  expect(recorded.map((v) => v.status)).toEqual(['pending', 'succeeded', 'failed']);
  expect(await queue.claimDue({} as never)).toEqual({ claims: [], seen: 0 });
});
