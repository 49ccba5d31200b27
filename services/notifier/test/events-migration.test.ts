import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Client } from 'pg';
import { webhookEvent, type Identity } from '@pl/contracts';
import { Db, migrate } from '@pl/db';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { EventRepository } from '../src/data/event.repository';
import { NOTIFIER_SCHEMA } from '../src/data/migrate';
import { getEvent } from '../src/domain/events';

const log = pino({ level: 'silent' });
const MIGRATIONS = join(__dirname, '..', 'migrations');
const EVENTS_MIGRATION = '20261126000100000_events.sql';

/** Events taken in before the events API (payment.succeeded only, some from before test mode) read like new ones. */
describe('the events migration over an existing inbox', () => {
  let database: TestDatabase;
  let pg: Client;
  let db: Db;
  const merchantId = randomUUID();
  const linkId = randomUUID();
  const eventId = randomUUID();

  beforeAll(async () => {
    database = await createTestDatabase('notifevmig');
    const before = mkdtempSync(join(tmpdir(), 'notifier-migrations-'));
    try {
      for (const file of readdirSync(MIGRATIONS).filter((f) => f < EVENTS_MIGRATION)) copyFileSync(join(MIGRATIONS, file), join(before, file));
      await migrate({ url: database.url, schema: NOTIFIER_SCHEMA, dir: before, log });
    } finally {
      rmSync(before, { recursive: true, force: true });
    }
    pg = new Client({ connectionString: database.url });
    await pg.connect();
    // As the notifier stored it before test mode: no livemode in the payload.
    const payload = {
      event_id: eventId,
      event: 'payment.succeeded',
      occurred_at: '2026-11-20T10:00:00+03:00',
      merchant_id: merchantId,
      data: {
        payment_link_id: linkId,
        id: linkId,
        shop_id: 7,
        order_id: null,
        amount: '10.00',
        merchant_credit: '9.90',
        status: 'paid',
        paid_at: '2026-11-20T10:00:00+03:00',
      },
    };
    await pg.query('INSERT INTO notifier.inbox_events (event_id, payload) VALUES ($1, $2)', [eventId, payload]);
    await pg.query(
      `INSERT INTO notifier.deliveries (id, event_id, webhook_id, event, merchant_id, shop_id, payment_link_id, livemode, body, next_attempt_at)
       VALUES ($1, $2, $3, 'payment.succeeded', $4, 7, $5, true, '\\x7b7d', now())`,
      [randomUUID(), eventId, `whk_${eventId}`, merchantId, linkId],
    );
    await migrate({ url: database.url, schema: NOTIFIER_SCHEMA, dir: MIGRATIONS, log });
    db = new Db({ url: database.url, schema: NOTIFIER_SCHEMA, log });
  });

  afterAll(async () => {
    await db?.close();
    await pg?.end();
    await database?.drop();
  });

  it('fills the new columns from the payload and reads the event in the contract shape; its delivery keeps its webhook id', async () => {
    const { rows } = await pg.query(
      'SELECT type, merchant_id, shop_id::int AS shop_id, payment_link_id, livemode, occurred_at FROM notifier.inbox_events WHERE event_id = $1',
      [eventId],
    );
    expect(rows).toEqual([
      {
        type: 'payment.succeeded',
        merchant_id: merchantId,
        shop_id: 7,
        payment_link_id: linkId,
        livemode: true,
        occurred_at: new Date('2026-11-20T07:00:00Z'),
      },
    ]);
    const merchant: Identity = { kind: 'merchant', merchant_id: merchantId, auth: 'api_key', email_confirmed: true, mode: 'live' };
    const event = await getEvent(new EventRepository(db), merchant, `evt_${eventId}`);
    expect(webhookEvent.parse(event)).toEqual({
      event: 'payment.succeeded',
      event_id: `evt_${eventId}`,
      created_at: '2026-11-20T10:00:00+03:00',
      livemode: true,
      data: expect.objectContaining({ payment_link_id: linkId, shop_id: 7, status: 'paid' }),
    });
    const delivery = await pg.query('SELECT webhook_id FROM notifier.deliveries WHERE event_id = $1', [eventId]);
    expect(delivery.rows).toEqual([{ webhook_id: `whk_${eventId}` }]);
  });
});
