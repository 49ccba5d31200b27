import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { platformEvent } from '@pl/contracts';
import { Db } from '@pl/db';
import { computeAmounts } from '@pl/money';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { LINKS_SCHEMA, migrateLinks } from '../src/data/migrate';
import { insertLinkStatement, LinkRepository } from '../src/data/link.repository';
import { COLUMNS, toRecord, type LinkRow } from '../src/data/link.row';
import type { NewLink, OutboxEntry } from '../src/domain/link';
import { LINKS_OWN_MODE } from '../src/domain/ports';
import { linkClosed } from '../src/domain/payment-event';
import { sampleNewLink } from '../src/domain/sample-link.fixture';

jest.setTimeout(30_000);

const TOPIC = 'expiry-sweep-events';

/**
 * The sweep's `payment_link.expired` events are written by Postgres in the sweep's own statement
 * (src/data/expiry-sweep.statement.ts); every other move's event is built by `linkClosed` in JavaScript. A consumer
 * must not be able to tell the two apart: same fields, same values, the same headers, the contract's shape.
 */
describe("the expiry sweep's events, written by Postgres", () => {
  const log = pino({ level: 'silent' });
  let database: TestDatabase;
  let db: Db;
  let links: LinkRepository;
  const handedOver: OutboxEntry[] = [];
  const merchantId = randomUUID();

  beforeAll(async () => {
    database = await createTestDatabase('expiryevents');
    await migrateLinks(database.url, log);
    db = new Db({ url: database.url, schema: LINKS_SCHEMA, log, prepare: true, max: 2 });
    links = new LinkRepository(db, (entry) => handedOver.push(entry), TOPIC);
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  /** A pending link whose expiry is `expiresAt` (an SQL expression), with `over` on top of a sample link. */
  async function pending(over: Partial<NewLink>, expiresAt: string): Promise<string> {
    const link = sampleNewLink({ merchantId, ...over });
    const insert = insertLinkStatement(link);
    await db.query(insert.text, insert.params);
    await db.query(`UPDATE payment_links SET created_at = now() - interval '2 days', expires_at = ${expiresAt} WHERE id = $1`, [link.id]);
    return link.id;
  }

  const rowOf = async (id: string): Promise<LinkRow | undefined> =>
    (await db.query<LinkRow>(`SELECT ${COLUMNS} FROM payment_links WHERE id = $1`, [id]))[0];

  it('are the events linkClosed builds from the expired rows, in the record and as handed to the relay', async () => {
    const awkward = 'quote " backslash \\ tab \t newline \n controls \u0001\u001f line sep \u2028 Чайная 🍵';
    const priced = (amount: number): Partial<NewLink> => {
      const { payerAmount, merchantCredit, platformRevenue } = computeAmounts(amount, 150, 'split');
      return { amount, feePayer: 'split', payerAmount, merchantCredit, platformRevenue };
    };
    const due = [
      await pending({}, "now() - interval '1 second'"),
      await pending({ orderId: awkward }, "now() - interval '1 day'"),
      await pending({ orderId: null, ...priced(1) }, "now() - interval '1 minute'"),
      await pending({ ...priced(9_999_999_999), livemode: false }, 'now()'),
    ];
    const notYet = await pending({}, "now() + interval '1 minute'");
    const paid = await pending({}, "now() - interval '1 second'");
    await db.query("UPDATE payment_links SET status = 'paid', paid_at = now() WHERE id = $1", [paid]);
    handedOver.length = 0;

    const swept = await links.expireDueBatch(1000, LINKS_OWN_MODE);
    expect([...swept].sort()).toEqual([...due].sort());
    expect(await links.expireDueBatch(1000, LINKS_OWN_MODE)).toEqual([]);
    expect((await rowOf(notYet))?.status).toBe('pending');
    expect((await rowOf(paid))?.status).toBe('paid');

    const written = await db.query<{ id: string; topic: string; message_key: string; payload: unknown; headers: Record<string, string> }>(
      'SELECT id, topic, message_key, payload, headers FROM outbox',
    );
    expect(written.map((w) => w.message_key).sort()).toEqual([...due].sort());
    expect(handedOver.map((e) => e.id).sort()).toEqual(written.map((w) => w.id).sort());
    for (const w of written) {
      const row = await rowOf(w.message_key);
      if (!row) throw new Error(`link ${w.message_key} is gone`);
      const expected = linkClosed(toRecord(row), w.id, TOPIC);
      expect(w).toEqual({ id: expected.id, topic: TOPIC, message_key: expected.key, payload: expected.payload, headers: expected.headers });
      const entry = handedOver.find((e) => e.id === w.id);
      expect(entry).toMatchObject({ id: expected.id, topic: TOPIC, key: expected.key, headers: expected.headers });
      // What the relay publishes: the JSON text as Postgres wrote it, the contract's event.
      const published: unknown = JSON.parse(entry?.json ?? 'null');
      expect(published).toEqual(expected.payload);
      expect(platformEvent.parse(published)).toEqual(expected.payload);
    }
  });
});
