import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { formatMoscow, subjects, type PlatformEvent } from '@pl/contracts';
import { Db } from '@pl/db';
import { eventually } from '@pl/testing';
import { EventRepository } from '../src/data/event.repository';
import { NOTIFIER_SCHEMA } from '../src/data/migrate';
import { EventPurge } from '../src/entry/background/event-purge';
import { Receiver } from './receiver';
import { linkIdOf, TestSystem } from './harness';

const log = pino({ level: 'silent' });
const DAY_MS = 86_400_000;

/**
 * Events are kept 30 days (EVENT_RETENTION_DAYS). Those of a day with a partition leave with it (partition-upkeep.test.ts);
 * these, published 31 and 40 days late, have none: they land in the DEFAULT partition, purged in small batches.
 * Deliveries, the merchants' log, stay.
 */
describe('purge of expired events', () => {
  const system = new TestSystem('notifpurge');
  let receiver: Receiver;
  let db: Db;
  let shopId: number;
  let resent: PlatformEvent;
  const daysAgo = (days: number): string => formatMoscow(new Date(Date.now() - days * DAY_MS));
  const inInbox = async (e: PlatformEvent): Promise<boolean> =>
    (await system.pg!.query('SELECT 1 FROM notifier.inbox_events WHERE event_id = $1', [e.event_id])).rows.length === 1;

  beforeAll(async () => {
    await system.start();
    receiver = await new Receiver().start();
    db = new Db({ url: system.database!.url, schema: NOTIFIER_SCHEMA, log });
    shopId = await system.createShop(receiver.url, null);
  });

  afterAll(async () => {
    await db?.close();
    await receiver?.close();
    await system.stop();
  });

  it('deletes old events of the DEFAULT partition in batches, keeps recent ones and those a pending delivery needs; finished deliveries stay, resendable', async () => {
    /** Not subscribed (no delivery), 40 days old: goes. */
    const unsent = system.anyEvent('refund.failed', shopId, { at: daysAgo(40) });
    /** Delivered and finished, 31 days old: goes; its delivery stays. */
    const delivered = system.anyEvent('payment.succeeded', shopId, { at: daysAgo(31) });
    /** Delivered, then resent (pending again), 40 days old: stays until its delivery ends. */
    resent = system.anyEvent('payment.succeeded', shopId, { at: daysAgo(40) });
    /** 29 days old: stays. */
    const recent = system.anyEvent('payment.failed', shopId, { at: daysAgo(29) });
    for (const e of [unsent, delivered, resent, recent]) await system.publish(e);
    expect(await system.settled(delivered.event_id)).toBe('succeeded');
    expect(await system.settled(resent.event_id)).toBe('succeeded');
    await eventually(async () => (await inInbox(unsent)) && (await inInbox(recent)), 'every event recorded', 20_000, 25);
    await system.pg!.query("UPDATE notifier.deliveries SET status = 'pending', next_attempt_at = now() + interval '1 day' WHERE event_id = $1", [
      resent.event_id,
    ]);

    const repo = new EventRepository(db);
    const batches: number[] = [];
    const purge = new EventPurge({
      events: { purgeExpired: async (days, limit) => (batches.push(await repo.purgeExpired(days, limit)), batches.at(-1)!) },
      retentionDays: 30,
      intervalMs: 60_000,
      batchSize: 1,
      log,
    });
    expect(await purge.purge()).toBe(2);
    // One row a statement, until a batch comes back short.
    expect(batches).toEqual([1, 1, 0]);

    expect(await inInbox(unsent)).toBe(false);
    expect(await inInbox(delivered)).toBe(false);
    expect(await inInbox(resent)).toBe(true);
    expect(await inInbox(recent)).toBe(true);
    const merchant = system.merchant();
    await expect(system.bus!.request(subjects.eventsGet, { event_id: `evt_${unsent.event_id}` }, merchant)).rejects.toMatchObject({
      kind: 'not_found',
    });

    // The finished delivery outlives its event: still in the log, and a resend sends the same id and body.
    const { rows } = await system.pg!.query<{ id: string; event_id: string | null }>(
      'SELECT id, event_id FROM notifier.deliveries WHERE webhook_id = $1',
      [`evt_${delivered.event_id}`],
    );
    // It still names its event (no foreign key holds it to the partitioned record), which is no longer recorded.
    expect(rows).toEqual([{ id: expect.any(String), event_id: delivered.event_id }]);
    const deliveryId = rows[0]!.id;
    const first = receiver.hits.find((h) => h.headers['webhook-id'] === `evt_${delivered.event_id}`)!;
    const log_ = await system.bus!.request(
      subjects.deliveriesList,
      { payment_link_id: linkIdOf(delivered), shop_id: null, status: null, limit: 20, cursor: null },
      merchant,
    );
    expect(log_.deliveries.map((d) => [d.id, d.event, d.status])).toEqual([[deliveryId, 'payment.succeeded', 'succeeded']]);
    const before = receiver.hits.length;
    await system.bus!.request(subjects.deliveriesResend, { id: deliveryId }, merchant);
    const again = await receiver.nth(before + 1);
    expect(again.headers['webhook-id']).toBe(`evt_${delivered.event_id}`);
    expect(again.body.equals(first.body)).toBe(true);
  });

  it('purges nothing younger than the retention, and every older event once its delivery has ended', async () => {
    const young = system.anyEvent('payment_link.canceled', shopId, { linkId: randomUUID(), at: daysAgo(1) });
    await system.publish(young);
    await eventually(() => inInbox(young), 'the event recorded', 20_000, 25);
    // The resend before succeeded at this endpoint, which brought the pending delivery forward: once it has ended,
    // its event goes too.
    expect(await system.settled(resent.event_id)).toBe('succeeded');
    expect(await new EventRepository(db).purgeExpired(30, 100)).toBe(1);
    expect(await inInbox(young)).toBe(true);
    const { rows } = await system.pg!.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM notifier.inbox_events WHERE occurred_at < now() - interval '30 days'",
    );
    expect(rows[0]?.n).toBe(0);
  });
});
