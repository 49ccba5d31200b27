import { randomUUID } from 'node:crypto';
import type { Mode } from '@pl/contracts';
import { Db } from '@pl/db';
import { createLogger, createMetricsRegistry } from '@pl/telemetry';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { instrumentDeliveries } from '../src/data/delivery-metrics';
import { DeliveryRepository } from '../src/data/delivery.repository';
import { migrateNotifier, NOTIFIER_SCHEMA } from '../src/data/migrate';
import type { AttemptResult, AttemptVerdict, ClaimedDelivery, DeliveryQueue } from '../src/domain/delivery';
import { samples } from './metrics';

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

/** The value of the one series of `name` labelled `mode`; undefined when there is none. */
const sample = (text: string, name: string, mode: Mode): number | undefined => {
  const found = samples(text, name, { mode });
  expect(found.length).toBeLessThanOrEqual(1);
  return found[0];
};

test('webhook_queue_oldest_due_age_seconds is, per mode, how long the longest-due pending delivery has waited, 0 when none is due', async () => {
  const metrics = createMetricsRegistry('notifier');
  const deliveries = new DeliveryRepository(db);
  instrumentDeliveries(deliveries, db, metrics);
  const age = async (mode: Mode): Promise<number | undefined> => sample(await metrics.metrics(), 'webhook_queue_oldest_due_age_seconds', mode);
  expect(await age('live')).toBe(0);
  expect(await age('test')).toBe(0);

  const [due, later, testDue] = [randomUUID(), randomUUID(), randomUUID()];
  for (const [id, mode] of [
    [due, 'live'],
    [later, 'live'],
    [testDue, 'test'],
  ] as const) {
    await deliveries.addTestDelivery({ id, webhookId: `msg_${id}`, merchantId: randomUUID(), shopId: 1, mode, body: Buffer.from('{}') });
  }
  await db.query(`UPDATE deliveries SET next_attempt_at = now() - interval '120 seconds' WHERE id = $1`, [due]);
  await db.query(`UPDATE deliveries SET next_attempt_at = now() + interval '1 hour' WHERE id = $1`, [later]);
  await db.query(`UPDATE deliveries SET next_attempt_at = now() - interval '600 seconds' WHERE id = $1`, [testDue]);
  // The test delivery has waited longest of all, but only the test series says so.
  const live = (await age('live')) ?? 0;
  expect(live).toBeGreaterThanOrEqual(120);
  expect(live).toBeLessThan(150);
  const test = (await age('test')) ?? 0;
  expect(test).toBeGreaterThanOrEqual(600);
  expect(test).toBeLessThan(630);

  // A delivery that is not pending any more (here: failed for good) is not waiting.
  await db.query(`UPDATE deliveries SET status = 'failed', next_attempt_at = NULL WHERE id = ANY($1::uuid[])`, [[due, testDue]]);
  expect(await age('live')).toBe(0);
  expect(await age('test')).toBe(0);
});

test('webhook_deliveries_exhausted_total counts the attempts recorded with a failed verdict, and only those, under their mode', async () => {
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
  const claim = { id: randomUUID(), mode: 'live' } as ClaimedDelivery;
  const testClaim = { id: randomUUID(), mode: 'test' } as ClaimedDelivery;
  const result = { ok: false } as AttemptResult;
  const exhausted = async (mode: Mode): Promise<number | undefined> => sample(await metrics.metrics(), 'webhook_deliveries_exhausted_total', mode);
  expect(await queue.recordAttempt(claim, null, result, { status: 'pending', nextAttemptAt: new Date() })).toBe(2);
  await queue.recordAttempt(claim, null, result, { status: 'succeeded' });
  expect(await exhausted('live')).toBe(0);
  expect(await exhausted('test')).toBe(0);
  await queue.recordAttempt(claim, null, result, { status: 'failed' });
  expect(await exhausted('live')).toBe(1);
  expect(await exhausted('test')).toBe(0);
  await queue.recordAttempt(testClaim, null, result, { status: 'failed' });
  expect(await exhausted('live')).toBe(1);
  expect(await exhausted('test')).toBe(1);
  expect(recorded.map((v) => v.status)).toEqual(['pending', 'succeeded', 'failed', 'failed']);
  expect(await queue.claimDue({} as never)).toEqual({ claims: [], seen: 0 });
});
