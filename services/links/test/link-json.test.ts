import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Db } from '@pl/db';
import { computeAmounts, type FeePayer } from '@pl/money';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { LINKS_SCHEMA, migrateLinks } from '../src/data/migrate';
import { insertLinkStatement, LinkRepository } from '../src/data/link.repository';
import { toPaymentLink } from '../src/domain/link-view';
import type { NewLink } from '../src/domain/link';
import { sampleNewLink } from '../src/domain/sample-link.fixture';

jest.setTimeout(30_000);

const BASE = 'https://pay.example.com/checkout "x"';

/**
 * A list page's links are written as JSON by Postgres (`payment_link_json`, a migration) and passed on as they are; a single link is
 * written by `toPaymentLink` and JSON.stringify. A merchant must not be able to tell the two apart, down to the byte.
 */
describe('a listed link written by Postgres', () => {
  const log = pino({ level: 'silent' });
  let database: TestDatabase;
  let db: Db;
  let links: LinkRepository;
  const merchantId = randomUUID();

  beforeAll(async () => {
    database = await createTestDatabase('linkjson');
    await migrateLinks(database.url, log);
    db = new Db({ url: database.url, schema: LINKS_SCHEMA, log, prepare: true, max: 2 });
    links = new LinkRepository(db);
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  /** Writes the link, then `columns` as they are (what a payment, a refund or a migration leaves behind). */
  async function stored(over: Partial<NewLink>, columns: Record<string, unknown> = {}): Promise<string> {
    const link = sampleNewLink({ merchantId, ...over });
    const insert = insertLinkStatement(link);
    await db.query(insert.text, insert.params);
    const names = Object.keys(columns);
    if (names.length > 0) {
      const sets = names.map((name, i) => `${name} = $${i + 2}`).join(', ');
      await db.query(`UPDATE payment_links SET ${sets} WHERE id = $1`, [link.id, ...Object.values(columns)]);
    }
    return link.id;
  }

  const priced = (amount: number, feePayer: FeePayer): Partial<NewLink> => {
    const { payerAmount, merchantCredit, platformRevenue } = computeAmounts(amount, 150, feePayer);
    return { amount, feePayer, payerAmount, merchantCredit, platformRevenue };
  };

  it('is byte for byte the JSON of toPaymentLink, whatever the text, money and times hold', async () => {
    const awkward = 'quote " backslash \\ slash / tab \t newline \n nul-free controls \u0001\u001f del \u007f line sep \u2028 Чайная 🍵';
    const ids = [
      await stored({}),
      await stored({ orderId: awkward, description: awkward, returnUrl: 'https://shop.example/thanks?q="1"&x=\\' }),
      await stored(priced(1, 'client')),
      await stored(priced(9_999_999_999, 'merchant')),
      await stored({ ...priced(100, 'split'), livemode: false }),
      await stored(priced(1010, 'split'), {
        status: 'paid',
        amount_refunded: 505,
        gateway_provider: 'sandbox',
        gateway_payment_id: `pay-${awkward}`,
        to_currency: 'USDT',
        network: 'USDT-TRC20',
        deposit_address: 'T' + 'x'.repeat(33),
        payer_currency: 'USDT',
        payer_crypto_amount: '12.345678',
        qr: 'data:image/png;base64,iVBORw0KGgo=',
        // Fractions of a second just under the next one: both writers drop them.
        paid_at: '2026-11-22 23:59:59.999999+00',
        created_at: '2026-11-22 20:59:59.999999+00',
        updated_at: '2026-12-31 21:00:00.000001+00',
        expires_at: '2027-01-01 00:00:00+03',
      }),
      await stored({}, { status: 'canceled' }),
    ];

    for (const mode of ['live', 'test'] as const) {
      const listed = await links.list({ scope: { merchantId, mode }, status: null, shopId: null, orderId: null, after: null, limit: 100 }, BASE);
      expect(listed.length).toBeGreaterThan(0);
      for (const link of listed) {
        const record = await links.findById(link.id, { mode });
        expect(record).not.toBeNull();
        expect(link.json).toBe(JSON.stringify(toPaymentLink(record!, BASE)));
        expect(link).toMatchObject({ status: record!.status, createdAtMicros: record!.createdAtMicros });
        expect(link.expiresAt.getTime()).toBe(record!.expiresAt.getTime());
      }
    }
    const all = await db.query<{ n: string }>('SELECT count(*) AS n FROM payment_links WHERE merchant_id = $1', [merchantId]);
    expect(Number(all[0]!.n)).toBe(ids.length);
  });
});
