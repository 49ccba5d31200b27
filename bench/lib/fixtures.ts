import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { Db } from '@pl/db';
import { createLogger } from '@pl/telemetry';
import { AccountRepository } from '@pl/gateway';
import { encodeCursor } from '@pl/links';
import { SecretBox, ShopRepository } from '@pl/shops';

/**
 * Retries set-up work while Postgres refuses connections (53300, too_many_connections): the machine's
 * Postgres is shared and max_connections is 100, which other people's test runs can fill for a moment.
 */
async function whileCrowded<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (e) {
      const code = (e as { code?: string; cause?: { code?: string } }).code ?? (e as { cause?: { code?: string } }).cause?.code;
      const crowded = code === '53300' || (e instanceof Error && /too many clients/i.test(e.message));
      if (!crowded || attempt >= 20) throw e;
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}

export interface BenchMerchant {
  id: string;
  /** X-API-Key / X-API-Secret. */
  headers: Record<string, string>;
}

/** Seeded links cost 100.00 RUB at 100 bps paid by the merchant; every money check of the table holds. */
const SEED_COLUMNS = `id, merchant_id, shop_id, order_id, amount, fee_bps, fee_percent_bp, crypto_bps, sbp_bps, fee_payer,
  payer_amount, merchant_credit, platform_revenue, status, expires_at, paid_at, created_at, updated_at, livemode`;

/**
 * Merchants and shops through the owning services' repositories (as the admin CLI and the tests do), and
 * links written straight into the links table in bulk (INSERT … SELECT generate_series: the API would take
 * hours for a million).
 */
export class Fixtures {
  private readonly log = createLogger('bench', 'warn');
  private readonly accountsDb: Db;
  private readonly shopsDb: Db;
  private readonly accounts: AccountRepository;
  private readonly shops: ShopRepository;

  constructor(
    private readonly databaseUrl: string,
    webhookSecretKey: string,
  ) {
    this.accountsDb = new Db({ url: databaseUrl, schema: 'gateway', log: this.log, max: 2 });
    this.shopsDb = new Db({ url: databaseUrl, schema: 'shops', log: this.log, max: 2 });
    this.accounts = new AccountRepository(this.accountsDb);
    this.shops = new ShopRepository(this.shopsDb, SecretBox.fromBase64(webhookSecretKey));
  }

  async merchant(): Promise<BenchMerchant> {
    const created = await whileCrowded(() =>
      this.accounts.createMerchant({
        email: `bench-${randomBytes(6).toString('hex')}@example.com`,
        password: `pw-${randomBytes(12).toString('hex')}`,
        emailConfirmed: true,
      }),
    );
    return { id: created.merchant.id, headers: { 'X-API-Key': created.apiKey, 'X-API-Secret': created.apiSecret } };
  }

  /** A user who signs in with a password alone (no second factor): the sign-in scenario's. */
  async user(): Promise<{ email: string; password: string }> {
    const email = `bench-user-${randomBytes(6).toString('hex')}@example.com`;
    const password = `pw-${randomBytes(12).toString('hex')}`;
    await whileCrowded(() => this.accounts.createMerchant({ email, password, emailConfirmed: true }));
    return { email, password };
  }

  /** An account's owner who signs in with a password (a second factor is theirs to enroll): the payouts scenario's. */
  async owner(): Promise<{ id: string; email: string; password: string; headers: Record<string, string> }> {
    const email = `bench-owner-${randomBytes(6).toString('hex')}@example.com`;
    const password = `pw-${randomBytes(12).toString('hex')}`;
    const created = await whileCrowded(() => this.accounts.createMerchant({ email, password, emailConfirmed: true }));
    return { id: created.merchant.id, email, password, headers: { 'X-API-Key': created.apiKey, 'X-API-Secret': created.apiSecret } };
  }

  async shop(merchantId: string, webhook: { url: string; secret: string } | null = null): Promise<number> {
    const created = await whileCrowded(() =>
      this.shops.createShop({
        merchant_id: merchantId,
        name: 'Bench shop',
        status: 'approved',
        fee_payer: 'merchant',
        crypto_bps: 100,
        sbp_bps: 100,
        webhook_url: webhook?.url ?? null,
        webhook_secret: webhook?.secret ?? null,
      }),
    );
    return created.shop.id;
  }

  /** Runs one statement on a connection of its own (no statement time-out: seeding a million rows takes a while). */
  async sql<T extends Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    const client = await whileCrowded(async () => {
      const c = new Client({ connectionString: this.databaseUrl });
      c.on('error', () => undefined);
      await c.connect();
      return c;
    });
    try {
      return (await client.query<T>(text, params)).rows;
    } finally {
      await client.end();
    }
  }

  /**
   * `count` links of one merchant and shop, created `stepMs` apart going back from `newest`. The first
   * `pendingNewest` (the newest) are pending and expire a day from now; older ones are expired, paid or
   * canceled, as a merchant's history would be.
   */
  async seedHistory(o: {
    merchantId: string;
    shopId: number;
    from: number;
    count: number;
    newest: Date;
    stepMs: number;
    pendingNewest: number;
  }): Promise<void> {
    await this.sql(
      `INSERT INTO links.payment_links (${SEED_COLUMNS})
       SELECT gen_random_uuid(), $1::uuid, $2::bigint, 'seed-' || g, 10000, 100, 100, 100, 100, 'merchant', 10000, 9900, 100,
              st, CASE WHEN st = 'pending' THEN now() + interval '1 day' ELSE c + interval '1 hour' END,
              CASE WHEN st = 'paid' THEN c + interval '10 minutes' END, c, c, true
         FROM (SELECT g, $3::timestamptz - g * ($4::bigint * interval '1 millisecond') AS c,
                      CASE WHEN g < $5 THEN 'pending' ELSE (ARRAY['expired', 'paid', 'expired', 'canceled', 'paid', 'expired'])[1 + g % 6] END AS st
                 FROM generate_series($6::int, $7::int) AS g) AS s`,
      [o.merchantId, o.shopId, o.newest.toISOString(), o.stepMs, o.pendingNewest, o.from, o.from + o.count - 1],
    );
  }

  /** `count` pending links that expire a day from now (a cancel pool, links to pay); returns their ids. */
  async seedPending(merchantId: string, shopId: number, count: number): Promise<string[]> {
    const rows = await this.sql<{ id: string }>(
      `INSERT INTO links.payment_links (${SEED_COLUMNS})
       SELECT gen_random_uuid(), $1::uuid, $2::bigint, 'pending-' || g, 10000, 100, 100, 100, 100, 'merchant', 10000, 9900, 100,
              'pending', now() + interval '1 day', NULL, now() - interval '1 minute', now() - interval '1 minute', true
         FROM generate_series(1, $3::int) AS g
       RETURNING id`,
      [merchantId, shopId, count],
    );
    return rows.map((r) => r.id);
  }

  /** `count` pending links that all fall due at `dueAt` (the expiry sweep's work). */
  async seedDue(merchantId: string, shopId: number, count: number, dueAt: Date): Promise<void> {
    await this.sql(
      `INSERT INTO links.payment_links (${SEED_COLUMNS})
       SELECT gen_random_uuid(), $1::uuid, $2::bigint, 'due-' || g, 10000, 100, 100, 100, 100, 'merchant', 10000, 9900, 100,
              'pending', $4::timestamptz, NULL, now() - interval '1 hour', now() - interval '1 hour', true
         FROM generate_series(1, $3::int) AS g`,
      [merchantId, shopId, count, dueAt.toISOString()],
    );
  }

  /**
   * Fresh planner statistics after a bulk seed, as autovacuum would give a table that grew gradually.
   * Without them the planner may take another merchant's statistics for the new rows and choose
   * (merchant_id, order_id) over the primary key for `WHERE id = $1 AND merchant_id = $2`.
   */
  async analyze(): Promise<void> {
    await this.sql('ANALYZE links.payment_links');
  }

  /**
   * After a bulk load: the table as autovacuum and the checkpointer leave one that grew over months
   * (visibility map set, statistics fresh, dirty pages written), so what is measured next is reading it, not
   * the write-back of the load (a run measured just after the million-row seed saw both sides' CPU per request
   * rise by a fifth).
   */
  async settleAfterBulkLoad(): Promise<void> {
    await this.sql('VACUUM (ANALYZE) links.payment_links');
    await this.sql('CHECKPOINT');
  }

  /** Up to `count` random link ids of a merchant. */
  async sampleIds(merchantId: string, count: number): Promise<string[]> {
    const rows = await this.sql<{ id: string }>('SELECT id FROM links.payment_links WHERE merchant_id = $1 ORDER BY random() LIMIT $2', [
      merchantId,
      count,
    ]);
    return rows.map((r) => r.id);
  }

  /**
   * The list cursor of the `position`-th link (0-based) in the merchant's newest-first order, in the links
   * service's own encoding: what a client holds after paging that deep. OFFSET is fine here, once.
   */
  async cursorAt(merchantId: string, position: number): Promise<string> {
    const rows = await this.sql<{ id: string; us: string }>(
      `SELECT id, (extract(epoch FROM created_at) * 1000000)::bigint AS us FROM links.payment_links
        WHERE merchant_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
      [merchantId, position],
    );
    const row = rows[0];
    if (!row) throw new Error(`merchant ${merchantId} has no link at position ${position}`);
    return encodeCursor({ createdAtMicros: BigInt(row.us), id: row.id });
  }

  async close(): Promise<void> {
    await this.accountsDb.close();
    await this.shopsDb.close();
  }
}
