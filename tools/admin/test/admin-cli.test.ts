import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pino from 'pino';
import { Db } from '@pl/db';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { AccountRepository, GATEWAY_SCHEMA, migrateGateway } from '@pl/gateway/testing';
import { LatePaymentRepository, LinkRepository, LINKS_SCHEMA, migrateLinks, sampleNewLink, type FinalStatus } from '@pl/links/testing';
import { DEV_WEBHOOK_SECRET_KEY, migrateShops, SecretBox, ShopRepository, SHOPS_SCHEMA } from '@pl/shops/testing';

const ROOT = join(__dirname, '..', '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const log = pino({ level: 'silent' });

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('admin CLI', () => {
  let database: TestDatabase;
  let gatewayDb: Db;
  let shopsDb: Db;
  let shops: ShopRepository;

  const admin = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        TSX,
        ['tools/admin/src/main.ts', ...args],
        { cwd: ROOT, env: { PATH: process.env.PATH, DATABASE_URL: database.url, ...env } },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  const ok = async (args: string[], env?: NodeJS.ProcessEnv): Promise<Record<string, unknown>> => {
    const run = await admin(args, env);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    // Exactly one JSON object and nothing else on stdout.
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    return JSON.parse(run.stdout) as Record<string, unknown>;
  };
  const fails = async (args: string[], env?: NodeJS.ProcessEnv): Promise<Run & { error: { code: string; message: string } }> => {
    const run = await admin(args, env);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    const body = JSON.parse(run.stderr) as { error: { code: string; message: string } };
    expect(typeof body.error.message).toBe('string');
    return { ...run, error: body.error };
  };
  const newMerchant = async (email: string): Promise<string> =>
    (await ok(['merchant:create', '--email', email, '--password', 'correct horse'])).merchant_id as string;

  beforeAll(async () => {
    database = await createTestDatabase('admin');
    await migrateGateway(database.url, log);
    await migrateShops(database.url, log);
    gatewayDb = new Db({ url: database.url, schema: GATEWAY_SCHEMA, log });
    shopsDb = new Db({ url: database.url, schema: SHOPS_SCHEMA, log });
    shops = new ShopRepository(shopsDb, SecretBox.fromBase64(DEV_WEBHOOK_SECRET_KEY));
  });

  afterAll(async () => {
    await gatewayDb?.close();
    await shopsDb?.close();
    await database?.drop();
  });

  it('merchant:create prints a merchant whose API key pair authenticates', async () => {
    const out = await ok(['merchant:create', '--email', 'ops@example.com', '--password', 'correct horse', '--email-confirmed']);
    expect(out).toEqual({
      merchant_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      api_key: expect.stringMatching(/^pk_live_/),
      api_secret: expect.stringMatching(/^sk_live_/),
    });
    const merchant = await new AccountRepository(gatewayDb).findByApiKey(String(out.api_key), String(out.api_secret));
    expect(merchant).toMatchObject({ id: out.merchant_id, email: 'ops@example.com', emailConfirmed: true });
  });

  it('merchant:create with a taken email fails with account.err.email_taken', async () => {
    await newMerchant('taken@example.com');
    const run = await fails(['merchant:create', '--email', 'TAKEN@example.com', '--password', 'correct horse']);
    expect(run.code).toBe(1);
    expect(run.error.code).toBe('account.err.email_taken');
  });

  it('merchant:create with a bad email exits 2 with a validation error', async () => {
    const run = await fails(['merchant:create', '--email', 'not-an-email', '--password', 'correct horse']);
    expect(run.code).toBe(2);
    expect(run.error.code).toBe('common.err.validation_failed');
    expect(run.error.message).toMatch(/--email/);
  });

  it('shop:create with defaults prints the shop id and a working cashier key', async () => {
    const merchantId = await newMerchant('defaults@example.com');
    const out = await ok(['shop:create', '--merchant', merchantId, '--name', 'Corner shop']);
    expect(out).toEqual({ shop_id: expect.any(Number), cashier_key: expect.stringMatching(/^svc_live_[A-Za-z0-9_-]{43}$/) });
    const shop = await shops.findByCashierKey(String(out.cashier_key));
    expect(shop).toMatchObject({
      id: out.shop_id,
      merchantId,
      name: 'Corner shop',
      status: 'pending',
      feePayer: 'merchant',
      cryptoBps: 100,
      sbpBps: 100,
      webhookUrl: null,
      hasWebhookSecret: false,
    });
  });

  it('shop:create with every setting stores them, the webhook secret encrypted', async () => {
    const merchantId = await newMerchant('full@example.com');
    const out = await ok([
      'shop:create',
      '--merchant',
      merchantId,
      '--name',
      'Full shop',
      '--status',
      'approved',
      '--fee-payer',
      'split',
      '--crypto-bps',
      '250',
      '--sbp-bps',
      '0',
      '--webhook-url',
      'https://93.184.216.34/hook',
      '--webhook-secret',
      'whsec-plain',
    ]);
    const shopId = Number(out.shop_id);
    await expect(shops.getShop(shopId)).resolves.toMatchObject({ status: 'approved', feePayer: 'split', cryptoBps: 250, sbpBps: 0 });
    await expect(shops.getWebhookTarget(shopId)).resolves.toEqual({ url: 'https://93.184.216.34/hook', secret: 'whsec-plain', previousSecret: null });
    const [row] = await shopsDb.query<{ webhook_secret_enc: Buffer }>('SELECT webhook_secret_enc FROM shops WHERE id = $1', [shopId]);
    expect(row?.webhook_secret_enc.includes(Buffer.from('whsec-plain'))).toBe(false);
  });

  it('shop:create for an unknown merchant fails with not_found', async () => {
    const run = await fails(['shop:create', '--merchant', '00000000-0000-4000-8000-000000000000', '--name', 'Ghost']);
    expect(run.code).toBe(1);
    expect(run.error).toEqual({ code: 'common.err.not_found', message: 'Merchant not found' });
  });

  it.each([
    [['--crypto-bps', '10001'], '--crypto-bps'],
    [['--sbp-bps', '1.5'], '--sbp-bps'],
    [['--status', 'live'], '--status'],
    [['--fee-payer', 'nobody'], '--fee-payer'],
    [['--unknown-flag', 'x'], 'unknown-flag'],
  ])('shop:create with %j exits 2 naming the flag', async (extra, flag) => {
    const run = await fails(['shop:create', '--merchant', '00000000-0000-4000-8000-000000000000', '--name', 'N', ...extra]);
    expect(run.code).toBe(2);
    expect(run.error.code).toBe('common.err.validation_failed');
    expect(run.error.message).toContain(flag);
  });

  it('shop:create refuses a private webhook target unless the deployment allows it', async () => {
    const merchantId = await newMerchant('private@example.com');
    const args = ['shop:create', '--merchant', merchantId, '--name', 'P', '--webhook-url', 'http://127.0.0.1:9000/hook'];
    const refused = await fails(args);
    expect(refused.code).toBe(2);
    expect(refused.error.message).toMatch(/webhook_url/);
    await ok(args, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  });

  it('shop:create refuses a non-http webhook URL', async () => {
    const merchantId = await newMerchant('ftp@example.com');
    const run = await fails(['shop:create', '--merchant', merchantId, '--name', 'F', '--webhook-url', 'ftp://93.184.216.34/x']);
    expect(run.code).toBe(2);
  });

  it('shop:update changes only the given settings and prints the shop without secrets', async () => {
    const merchantId = await newMerchant('update@example.com');
    const { shop_id: shopId } = await ok(['shop:create', '--merchant', merchantId, '--name', 'Before']);
    const out = await ok(['shop:update', '--shop', String(shopId), '--status', 'approved', '--sbp-bps', '75', '--webhook-secret', 'new-secret']);
    expect(out).toEqual({
      id: shopId,
      merchant_id: merchantId,
      name: 'Before',
      status: 'approved',
      fee_payer: 'merchant',
      crypto_bps: 100,
      sbp_bps: 75,
      webhook_url: null,
      has_webhook_secret: true,
      created_at: expect.stringMatching(/\+03:00$/),
      updated_at: expect.stringMatching(/\+03:00$/),
    });
    expect(JSON.stringify(out)).not.toContain('new-secret');
  });

  it('shop:update with empty values clears the webhook URL and secret', async () => {
    const merchantId = await newMerchant('clear@example.com');
    const { shop_id: shopId } = await ok([
      'shop:create',
      '--merchant',
      merchantId,
      '--name',
      'C',
      '--webhook-url',
      'https://93.184.216.34/h',
      '--webhook-secret',
      's',
    ]);
    const out = await ok(['shop:update', '--shop', String(shopId), '--webhook-url', '', '--webhook-secret', '']);
    expect(out).toMatchObject({ webhook_url: null, has_webhook_secret: false });
  });

  it('shop:update of an unknown shop fails with not_found, and --merchant is not accepted', async () => {
    expect((await fails(['shop:update', '--shop', '987654', '--name', 'X'])).error.code).toBe('common.err.not_found');
    const merchantFlag = await fails(['shop:update', '--shop', '1', '--merchant', '00000000-0000-4000-8000-000000000000']);
    expect(merchantFlag.code).toBe(2);
  });

  it('payment:confirm validates its flags (exit 2) before touching the bus', async () => {
    expect((await fails(['payment:confirm', '--link', 'nope'])).code).toBe(2);
    expect((await fails(['payment:confirm', '--link', '00000000-0000-4000-8000-000000000000', '--status', 'refunded'])).code).toBe(2);
    expect((await fails(['payment:confirm'])).code).toBe(2);
  });

  it('payment:confirm fails at once with common.err.unavailable when NATS is unreachable', async () => {
    const run = await fails(['payment:confirm', '--link', '00000000-0000-4000-8000-000000000000'], { NATS_URL: 'nats://127.0.0.1:1' });
    expect(run.code).toBe(1);
    expect(run.error.code).toBe('common.err.unavailable');
  });

  describe('the one text rule on flags', () => {
    const count = async (db: Db, table: string): Promise<number> =>
      Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`))[0]?.n);
    // NUL and lone surrogates cannot travel in argv at all; flags.test.ts covers them in-process.
    const hostile = [
      ['bell (C0)', '\u0007'],
      ['next line (C1)', '\u0085'],
      ['right-to-left override', '\u202e'],
    ] as const;

    it.each(hostile)('merchant:create with %s in --email exits 2 naming the flag, and stores nothing', async (_name, ch) => {
      const before = await count(gatewayDb, 'merchants');
      const run = await fails(['merchant:create', '--email', `ops${ch}@example.com`, '--password', 'correct horse']);
      expect(run.code).toBe(2);
      expect(JSON.parse(run.stderr)).toEqual({
        error: {
          code: 'common.err.validation_failed',
          message: expect.stringContaining('--email'),
          details: [{ field: 'email', code: 'custom', message: expect.any(String) }],
        },
      });
      expect(await count(gatewayDb, 'merchants')).toBe(before);
    });

    it.each(hostile)('shop:create with %s in --name exits 2 naming the flag, and stores nothing', async (_name, ch) => {
      const merchantId = await newMerchant(`text-${ch.codePointAt(0)}@example.com`);
      const before = await count(shopsDb, 'shops');
      const run = await fails(['shop:create', '--merchant', merchantId, '--name', `Tea${ch}shop`]);
      expect(run.code).toBe(2);
      expect(JSON.parse(run.stderr).error.details).toEqual([{ field: 'name', code: 'custom', message: expect.any(String) }]);
      expect(await count(shopsDb, 'shops')).toBe(before);
    });
  });

  describe('payment:late', () => {
    let linksDb: Db;
    const merchantId = randomUUID();

    /** A link of 1000.00 (fee 1%, paid by the client) moved to `status`, then paid late at `receivedAt`. */
    const latePayment = async (status: Exclude<FinalStatus, 'paid' | 'expired'>, receivedAt: string): Promise<string> => {
      const links = new LinkRepository(linksDb);
      const { id } = await links.insert(
        sampleNewLink({
          merchantId,
          shopId: 7,
          orderId: `order-${status}`,
          amount: 100000,
          feeBps: 100,
          feePercentBp: 100,
          cryptoBps: 100,
          sbpBps: 100,
          feePayer: 'client',
          payerAmount: 101000,
          merchantCredit: 100000,
          platformRevenue: 1000,
        }),
      );
      await links.transition(id, status);
      const late = { id: randomUUID(), linkId: id, provider: 'sandbox', gatewayPaymentId: `sbx_${id}`, receivedAt: new Date(receivedAt) };
      await expect(new LatePaymentRepository(linksDb).recordIfLate(late)).resolves.toMatchObject({ linkStatus: status });
      return id;
    };

    beforeAll(async () => {
      await migrateLinks(database.url, log);
      linksDb = new Db({ url: database.url, schema: LINKS_SCHEMA, log });
    });

    afterAll(async () => {
      await linksDb?.close();
    });

    it('lists nothing while there are none, then every late payment oldest first, or those since a time', async () => {
      expect(await ok(['payment:late'])).toEqual({ late_payments: [] });
      const canceled = await latePayment('canceled', '2026-11-24T10:00:00+03:00');
      const failed = await latePayment('failed', '2026-11-25T10:00:00+03:00');
      const row = (linkId: string, status: string, receivedAt: string) => ({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        link_id: linkId,
        link_status: status,
        merchant_id: merchantId,
        shop_id: 7,
        order_id: `order-${status}`,
        provider: 'sandbox',
        gateway_payment_id: `sbx_${linkId}`,
        payer_amount: '1010.00',
        received_at: receivedAt,
      });
      const both = { late_payments: [row(canceled, 'canceled', '2026-11-24T10:00:00+03:00'), row(failed, 'failed', '2026-11-25T10:00:00+03:00')] };
      expect(await ok(['payment:late'])).toEqual(both);
      // The bound is inclusive; a date alone is midnight in Moscow; any offset is understood.
      expect(await ok(['payment:late', '--since', '2026-11-24T10:00:00+03:00'])).toEqual(both);
      expect(await ok(['payment:late', '--since', '2026-11-24T07:00:01Z'])).toEqual({ late_payments: [both.late_payments[1]] });
      expect(await ok(['payment:late', '--since', '2026-11-25'])).toEqual({ late_payments: [both.late_payments[1]] });
      expect(await ok(['payment:late', '--since', '2026-11-26'])).toEqual({ late_payments: [] });
    });

    it.each([
      ['a word', ['--since', 'yesterday']],
      ['a date that does not exist', ['--since', '2026-02-30']],
      ['a date-time without its offset', ['--since', '2026-11-24T10:00:00']],
      ['a missing value', ['--since']],
      ['an unknown flag', ['--until', '2026-11-24']],
      ['a positional argument', ['2026-11-24']],
    ])('refuses %s with exit 2 and a validation error', async (_name, args) => {
      const run = await fails(['payment:late', ...args]);
      expect(run.code).toBe(2);
      expect(run.error.code).toBe('common.err.validation_failed');
    });

    it('names --since and says what it takes when the date is bad', async () => {
      const run = await fails(['payment:late', '--since', '24.11.2026']);
      expect(run.error.message).toMatch(/^--since: must be an ISO 8601 date/);
    });
  });

  it('an unknown command exits 2 listing the commands', async () => {
    const run = await fails(['shop:delete']);
    expect(run.code).toBe(2);
    expect(run.error.message).toContain('merchant:create');
  });

  it('an unreachable database fails with common.err.unavailable', async () => {
    const run = await fails(['shop:update', '--shop', '1'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' });
    expect(run.error.code).toBe('common.err.unavailable');
  });
});
