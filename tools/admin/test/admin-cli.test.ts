import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pino from 'pino';
import { Db } from '@pl/db';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { AccountRepository, DEFAULT_SCRYPT, GATEWAY_SCHEMA, mailLinks, migrateGateway, PasswordHasher, UserRepository } from '@pl/gateway/testing';
import {
  LatePaymentRepository,
  LinkRepository,
  LINKS_OWN_MODE,
  LINKS_SCHEMA,
  migrateLinks,
  sampleNewLink,
  type FinalStatus,
} from '@pl/links/testing';
import { DeliveryRepository, migrateNotifier, NOTIFIER_SCHEMA } from '@pl/notifier/testing';
import type { Mode, PaymentSucceededEvent } from '@pl/contracts';
import { renderOutcome, runCli } from '../src/cli';
import type { CliIo } from '../src/secrets';
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

  /**
   * Runs a command in this process, as main.ts would, with `stdin` as its standard input and only `env` (plus the
   * test database) as its environment: a process per call cost about 3 s each under tsx. The process itself is
   * covered by the tests of `adminProcess` below.
   */
  const admin = async (args: string[], env: NodeJS.ProcessEnv = {}, stdin = ''): Promise<Run> => {
    let warnings = '';
    const io: CliIo = {
      readStdin: () => Promise.resolve(stdin),
      warn: (message) => {
        warnings += `${message}\n`;
      },
    };
    const out = renderOutcome(await runCli(args, { DATABASE_URL: database.url, ...env }, io));
    return { code: out.exitCode, stdout: out.stdout, stderr: warnings + out.stderr };
  };
  /** Runs the CLI as a real process (tsx on its source), with `stdin` piped in and closed. */
  const adminProcess = (args: string[], env: NodeJS.ProcessEnv = {}, stdin = ''): Promise<Run> =>
    new Promise((resolve) => {
      const child = execFile(
        TSX,
        ['tools/admin/src/main.ts', ...args],
        { cwd: ROOT, env: { PATH: process.env.PATH, DATABASE_URL: database.url, ...env } },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
      child.stdin?.end(stdin);
    });
  const ok = async (args: string[], env?: NodeJS.ProcessEnv, stdin?: string): Promise<Record<string, unknown>> => {
    const run = await admin(args, env, stdin);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    // Exactly one JSON object and nothing else on stdout.
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    return JSON.parse(run.stdout) as Record<string, unknown>;
  };
  const fails = async (args: string[], env?: NodeJS.ProcessEnv, stdin?: string): Promise<Run & { error: { code: string; message: string } }> => {
    const run = await admin(args, env, stdin);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    // The error is the last line of stderr (a warning may come before it).
    const body = JSON.parse(run.stderr.trim().split('\n').pop() ?? '') as { error: { code: string; message: string } };
    expect(typeof body.error.message).toBe('string');
    return { ...run, error: body.error };
  };
  const newMerchant = async (email: string): Promise<string> =>
    (await ok(['merchant:create', '--email', email], { ADMIN_MERCHANT_PASSWORD: 'correct horse' })).merchant_id as string;

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

  it('merchant:create prints a merchant whose live and test API key pairs authenticate, each only as a pair', async () => {
    const out = await ok(['merchant:create', '--email', 'ops@example.com', '--password-stdin', '--email-confirmed'], {}, 'correct horse\n');
    expect(out).toEqual({
      merchant_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      api_key: expect.stringMatching(/^pk_live_/),
      api_secret: expect.stringMatching(/^sk_live_/),
      test_api_key: expect.stringMatching(/^pk_test_/),
      test_api_secret: expect.stringMatching(/^sk_test_/),
    });
    const accounts = new AccountRepository(gatewayDb);
    const owner = { id: out.merchant_id, email: 'ops@example.com', emailConfirmed: true };
    await expect(accounts.findByApiKey(String(out.api_key), String(out.api_secret))).resolves.toMatchObject(owner);
    await expect(accounts.findByApiKey(String(out.test_api_key), String(out.test_api_secret))).resolves.toMatchObject(owner);
    // Two pairs, not four keys: a half of one pair does not open the other.
    await expect(accounts.findByApiKey(String(out.api_key), String(out.test_api_secret))).resolves.toBeNull();
    await expect(accounts.findByApiKey(String(out.test_api_key), String(out.api_secret))).resolves.toBeNull();
    const modes = await gatewayDb.query<{ public_key: string; mode: string }>(
      'SELECT public_key, mode FROM api_keys WHERE merchant_id = $1 ORDER BY mode',
      [out.merchant_id],
    );
    expect(modes).toEqual([
      { public_key: out.api_key, mode: 'live' },
      { public_key: out.test_api_key, mode: 'test' },
    ]);
    // A user with the email and password, owner of the new account. The password came from stdin without its final newline.
    // The CLI hashes with the gateway's default parameters (OWASP's minimum), so signing in finds nothing to raise.
    const hasher = new PasswordHasher(DEFAULT_SCRYPT);
    const [stored] = await gatewayDb.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE lower(email) = $1', ['ops@example.com']);
    expect(stored?.password_hash).toMatch(/^scrypt\$16384\$8\$5\$/);
    const users = new UserRepository(gatewayDb, async () => undefined, mailLinks('http://localhost:8080'), hasher);
    const user = await users.findByLogin('ops@example.com', 'correct horse');
    expect(user).toMatchObject({ email: 'ops@example.com', emailConfirmed: true });
    await expect(users.memberships(String(user?.id))).resolves.toEqual([expect.objectContaining({ merchantId: out.merchant_id, role: 'owner' })]);
  });

  it('merchant:create with a taken email fails with account.err.email_taken', async () => {
    await newMerchant('taken@example.com');
    const run = await fails(['merchant:create', '--email', 'TAKEN@example.com', '--password-stdin'], {}, 'correct horse');
    expect(run.code).toBe(1);
    expect(run.error.code).toBe('account.err.email_taken');
  });

  it('merchant:create with a bad email exits 2 with a validation error', async () => {
    const run = await fails(['merchant:create', '--email', 'not-an-email', '--password-stdin'], {}, 'correct horse');
    expect(run.code).toBe(2);
    expect(run.error.code).toBe('common.err.validation_failed');
    expect(run.error.message).toMatch(/--email/);
  });

  it('shop:create with defaults prints the shop id and a working live and test cashier key', async () => {
    const merchantId = await newMerchant('defaults@example.com');
    const out = await ok(['shop:create', '--merchant', merchantId, '--name', 'Corner shop']);
    expect(out).toEqual({
      shop_id: expect.any(Number),
      cashier_key: expect.stringMatching(/^svc_live_[A-Za-z0-9_-]{43}$/),
      test_cashier_key: expect.stringMatching(/^svc_test_[A-Za-z0-9_-]{43}$/),
    });
    await expect(shops.findByCashierKey(String(out.test_cashier_key))).resolves.toMatchObject({ id: out.shop_id, merchantId });
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
    const out = await ok(
      [
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
        '--webhook-secret-stdin',
      ],
      {},
      'whsec-plain\n',
    );
    const shopId = Number(out.shop_id);
    await expect(shops.getShop(shopId)).resolves.toMatchObject({ status: 'approved', feePayer: 'split', cryptoBps: 250, sbpBps: 0 });
    await expect(shops.getWebhookTarget(shopId)).resolves.toEqual({
      url: 'https://93.184.216.34/hook',
      secret: 'whsec-plain',
      previousSecret: null,
      webhookEvents: ['payment.succeeded'],
    });
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
    const out = await ok(['shop:update', '--shop', String(shopId), '--status', 'approved', '--sbp-bps', '75', '--webhook-secret-from-env'], {
      ADMIN_WEBHOOK_SECRET: 'new-secret',
    });
    expect(out).toEqual({
      id: shopId,
      merchant_id: merchantId,
      name: 'Before',
      status: 'approved',
      fee_payer: 'merchant',
      crypto_bps: 100,
      sbp_bps: 75,
      webhook_url: null,
      webhook_events: ['payment.succeeded'],
      payment_methods: { sbp: true, crypto_networks: ['USDT-TRC20', 'USDT-ERC20', 'USDT-TON', 'BTC-BTC', 'ETH-ETH', 'TON-TON'] },
      has_webhook_secret: true,
      created_at: expect.stringMatching(/\+03:00$/),
      updated_at: expect.stringMatching(/\+03:00$/),
    });
    expect(JSON.stringify(out)).not.toContain('new-secret');
    await expect(shops.getWebhookTarget(Number(shopId))).resolves.toMatchObject({ url: null, secret: null }); // no URL: nothing to sign for
    await ok(['shop:update', '--shop', String(shopId), '--webhook-url', 'https://93.184.216.34/h']);
    await expect(shops.getWebhookTarget(Number(shopId))).resolves.toMatchObject({ secret: 'new-secret' });
  });

  it('shop:update with empty values clears the webhook URL and secret', async () => {
    const merchantId = await newMerchant('clear@example.com');
    const { shop_id: shopId } = await ok(
      ['shop:create', '--merchant', merchantId, '--name', 'C', '--webhook-url', 'https://93.184.216.34/h', '--webhook-secret-stdin'],
      {},
      's',
    );
    const out = await ok(['shop:update', '--shop', String(shopId), '--webhook-url', '', '--webhook-secret', '']);
    expect(out).toMatchObject({ webhook_url: null, has_webhook_secret: false });
  });

  it('shop:update --webhook-events sets the event subscription (empty: none) and refuses an unknown type or a repeat', async () => {
    const merchantId = await newMerchant('events@example.com');
    const { shop_id: shopId } = await ok(['shop:create', '--merchant', merchantId, '--name', 'E']);
    const set = await ok(['shop:update', '--shop', String(shopId), '--webhook-events', 'payment.failed,payment_link.expired']);
    expect(set).toMatchObject({ webhook_events: ['payment.failed', 'payment_link.expired'] });
    expect(await ok(['shop:update', '--shop', String(shopId), '--webhook-events', ''])).toMatchObject({ webhook_events: [] });
    for (const bad of ['payment.refunded', 'refund.failed,refund.failed']) {
      expect((await fails(['shop:update', '--shop', String(shopId), '--webhook-events', bad])).error.code).toBe('common.err.validation_failed');
    }
    await expect(shops.getShop(Number(shopId))).resolves.toMatchObject({ webhookEvents: [] });
  });

  it('shop:update --sbp and --crypto-networks set the methods (a flag left out stays) and refuse an unknown network or no method at all', async () => {
    const merchantId = await newMerchant('methods@example.com');
    const { shop_id: shopId } = await ok(['shop:create', '--merchant', merchantId, '--name', 'M']);
    const set = await ok(['shop:update', '--shop', String(shopId), '--crypto-networks', 'USDT-TRC20,BTC-BTC']);
    expect(set).toMatchObject({ payment_methods: { sbp: true, crypto_networks: ['USDT-TRC20', 'BTC-BTC'] } });
    const sbpOff = await ok(['shop:update', '--shop', String(shopId), '--sbp', 'off']);
    expect(sbpOff).toMatchObject({ payment_methods: { sbp: false, crypto_networks: ['USDT-TRC20', 'BTC-BTC'] } });
    for (const bad of [
      ['--crypto-networks', ''],
      ['--crypto-networks', 'DOGE-DOGE'],
      ['--crypto-networks', 'BTC-BTC,BTC-BTC'],
    ]) {
      expect((await fails(['shop:update', '--shop', String(shopId), ...bad])).error.code).toBe('common.err.validation_failed');
    }
    expect((await fails(['shop:update', '--shop', String(shopId), '--sbp', 'maybe'])).code).toBe(2);
    await expect(shops.getShop(Number(shopId))).resolves.toMatchObject({
      paymentMethods: { sbp: false, crypto_networks: ['USDT-TRC20', 'BTC-BTC'] },
    });
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
      const run = await fails(['merchant:create', '--email', `ops${ch}@example.com`], { ADMIN_MERCHANT_PASSWORD: 'correct horse' });
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
      await links.transition(id, status, LINKS_OWN_MODE);
      const late = {
        id: randomUUID(),
        linkId: id,
        reason: 'late' as const,
        provider: 'sandbox',
        gatewayPaymentId: `sbx_${id}`,
        providerOrderId: null,
        payerAmount: 101000,
        amount: 101000,
        merchantCredit: 100000,
        platformRevenue: 1000,
        payerCurrency: null,
        payerCryptoAmount: null,
        network: null,
        receivedAt: new Date(receivedAt),
      };
      // The event the links service would write with it (its relay does not run here).
      const created = () => ({ id: randomUUID(), topic: 'payment-events', key: id, payload: { event: 'unresolved_payment.created' }, headers: {} });
      await expect(new LatePaymentRepository(linksDb).record(late, created, LINKS_OWN_MODE)).resolves.toMatchObject({ linkStatus: status });
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

    it('unresolved:list shows them newest first by reason and status; unresolved:resolve settles one once, then 409', async () => {
      const listed = (await ok(['unresolved:list', '--reason', 'late', '--status', 'unresolved'])) as { unresolved_payments: { id: string }[] };
      expect(listed.unresolved_payments).toEqual([
        expect.objectContaining({ reason: 'late', link_status: 'failed', amount: '1010.00', status: 'unresolved', merchant_id: merchantId }),
        expect.objectContaining({ reason: 'late', link_status: 'canceled', amount: '1010.00', status: 'unresolved' }),
      ]);
      expect(await ok(['unresolved:list', '--reason', 'overpaid'])).toEqual({ unresolved_payments: [] });
      const id = listed.unresolved_payments[0]!.id;
      const resolved = await ok(['unresolved:resolve', '--id', id, '--action', 'settle']);
      expect(resolved).toMatchObject({ unresolved_payment: { id, status: 'settled' }, ledger_transaction_id: expect.any(String), refund_id: null });
      const again = await fails(['unresolved:resolve', '--id', id, '--action', 'refund']);
      expect(again.error.code).toBe('unresolved_payment.err.already_resolved');
      expect(((await ok(['unresolved:list', '--status', 'settled'])) as { unresolved_payments: unknown[] }).unresolved_payments).toHaveLength(1);
      const bad = await fails(['unresolved:list', '--reason', 'lost']);
      expect(bad.code).toBe(2);
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

  describe('secrets on the command line', () => {
    it('merchant:create still takes --password, and warns on stderr while stdout keeps its one object', async () => {
      const run = await admin(['merchant:create', '--email', 'argv@example.com', '--password', 'correct horse']);
      expect(run.code).toBe(0);
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ merchant_id: expect.any(String) });
      expect(run.stderr).toMatch(/^warning: --password leaves the secret in shell history .* use --password-stdin or ADMIN_MERCHANT_PASSWORD/);
      expect(run.stderr).not.toContain('correct horse');
    });

    it('shop:create still takes --webhook-secret with a warning; clearing it with an empty value does not warn', async () => {
      const merchantId = await newMerchant('argv-secret@example.com');
      const args = ['shop:create', '--merchant', merchantId, '--name', 'A', '--webhook-url', 'https://93.184.216.34/h'];
      const run = await admin([...args, '--webhook-secret', 'argv-secret']);
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(/^warning: --webhook-secret leaves the secret .* --webhook-secret-stdin or ADMIN_WEBHOOK_SECRET/);
      const shopId = Number(JSON.parse(run.stdout).shop_id);
      await expect(shops.getWebhookTarget(shopId)).resolves.toMatchObject({ secret: 'argv-secret' });
      expect(await ok(['shop:update', '--shop', String(shopId), '--webhook-secret', ''])).toMatchObject({ has_webhook_secret: false });
    });

    it('a failing command with a secret in argv still ends stderr with the JSON error', async () => {
      const run = await fails(['merchant:create', '--email', 'nope', '--password', 'correct horse']);
      expect(run.code).toBe(2);
      expect(run.stderr.split('\n')[0]).toMatch(/^warning: --password/);
      expect(run.error.message).toMatch(/--email/);
    });

    it.each([
      ['two ways at once', ['--password', 'correct horse', '--password-stdin'], {}, 'correct horse', /one way only/],
      ['an empty stdin', ['--password-stdin'], {}, '\n', /standard input \(--password-stdin\) is empty/],
      ['an empty variable', [], { ADMIN_MERCHANT_PASSWORD: '' }, '', /ADMIN_MERCHANT_PASSWORD is empty/],
      ['no password at all', [], {}, '', /--password: is required: give it with --password-stdin or ADMIN_MERCHANT_PASSWORD/],
      ['a short one from stdin', ['--password-stdin'], {}, 'short\n', /--password: must be at least 8 characters/],
    ])('merchant:create refuses %s with exit 2, storing nothing', async (_name, extra, env, stdin, message) => {
      const email = `refused-${randomUUID()}@example.com`;
      const run = await fails(['merchant:create', '--email', email, ...extra], env, stdin);
      expect(run.code).toBe(2);
      expect(run.error.code).toBe('common.err.validation_failed');
      expect(run.error.message).toMatch(message);
      expect(await gatewayDb.query('SELECT 1 FROM merchants WHERE email = $1', [email])).toEqual([]);
    });

    it('reads ADMIN_WEBHOOK_SECRET only when --webhook-secret-from-env asks for it', async () => {
      const merchantId = await newMerchant('env-secret@example.com');
      const create = ['shop:create', '--merchant', merchantId, '--name', 'E', '--webhook-url', 'https://93.184.216.34/h'];
      const plain = Number((await ok(create, { ADMIN_WEBHOOK_SECRET: 'ignored' })).shop_id);
      await expect(shops.getWebhookTarget(plain)).resolves.toMatchObject({ secret: null });
      const asked = Number((await ok([...create, '--webhook-secret-from-env'], { ADMIN_WEBHOOK_SECRET: 'from-env' })).shop_id);
      await expect(shops.getWebhookTarget(asked)).resolves.toMatchObject({ secret: 'from-env' });
      const unset = await fails([...create, '--webhook-secret-from-env']);
      expect(unset.code).toBe(2);
      expect(unset.error.message).toMatch(/--webhook-secret-from-env needs ADMIN_WEBHOOK_SECRET to be set/);
    });

    it('in production without WEBHOOK_SECRET_KEY (the gateway pod) lists and changes shops, but stores no webhook secret', async () => {
      const merchantId = await newMerchant('no-key@example.com');
      const production = { NODE_ENV: 'production' };
      const { shop_id: shopId } = await ok(['shop:create', '--merchant', merchantId, '--name', 'K'], production);
      expect(await ok(['shop:update', '--shop', String(shopId), '--status', 'approved'], production)).toMatchObject({ status: 'approved' });
      expect(await ok(['shop:show', '--shop', String(shopId)], production)).toMatchObject({ id: shopId });
      const refused = await fails(['shop:update', '--shop', String(shopId), '--webhook-secret-stdin'], production, 'a-secret');
      expect(refused.error.code).toBe('common.err.invalid_config');
      expect(refused.error.message).toMatch(/^Cannot store a webhook secret here: .*WEBHOOK_SECRET_KEY must be set in production/);
      expect(await ok(['shop:show', '--shop', String(shopId)])).toMatchObject({ has_webhook_secret: false });
    });
  });

  describe('as a process (main.ts)', () => {
    it('prints one JSON object on stdout and exits 0, reading the secret from the pipe', async () => {
      const run = await adminProcess(['merchant:create', '--email', 'process@example.com', '--password-stdin'], {}, 'correct horse\n');
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ merchant_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    });

    it('prints the live and test credentials only on stdout, never on stderr, even with every log level on', async () => {
      const traced = { ADMIN_LOG_LEVEL: 'trace' };
      const merchant = await adminProcess(['merchant:create', '--email', 'traced@example.com', '--password-stdin'], traced, 'correct horse\n');
      expect(merchant.code).toBe(0);
      const account = JSON.parse(merchant.stdout) as Record<string, string>;
      const shop = await adminProcess(['shop:create', '--merchant', String(account.merchant_id), '--name', 'Traced'], traced);
      expect(shop.code).toBe(0);
      const keys = JSON.parse(shop.stdout) as Record<string, string>;
      const secrets = [account.api_secret, account.test_api_secret, keys.cashier_key, keys.test_cashier_key, 'correct horse'];
      expect(secrets.every((secret) => typeof secret === 'string' && secret.length > 0)).toBe(true);
      for (const secret of secrets) expect(merchant.stderr + shop.stderr).not.toContain(String(secret));
    });

    it('exits non-zero with nothing on stdout and the JSON error as the last stderr line, after a warning', async () => {
      await newMerchant('process-taken@example.com');
      const run = await adminProcess(['merchant:create', '--email', 'process-taken@example.com', '--password', 'correct horse']);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      const lines = run.stderr.trim().split('\n');
      expect(lines.length).toBeGreaterThan(1);
      expect(JSON.parse(lines.at(-1)!)).toMatchObject({ error: { code: 'account.err.email_taken' } });
    });

    it('prints help as text and exits 0', async () => {
      const run = await adminProcess(['--help'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(/^Usage: /);
    });
  });

  describe('--help', () => {
    const unreachable = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' };

    it.each([['--help'], ['-h'], ['help']])('%s lists every command on stdout, exit 0, without a database', async (flag) => {
      const run = await admin([flag], unreachable);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      for (const command of [
        'merchant:create',
        'merchant:list',
        'shop:create',
        'shop:update',
        'shop:list',
        'shop:show',
        'link:show',
        'deliveries:list',
        'payment:confirm',
        'payment:late',
        'payment:late:resolve',
        'refund:settle',
        'ledger:verify',
        'payment:sync',
      ]) {
        expect(run.stdout).toContain(`  ${command} `);
      }
    });

    it.each([
      [['shop:list', '--help'], /^Usage: shop:list \[--merchant ID\] \[--limit N\] \[--cursor C\]/],
      [['merchant:create', '--email', 'x', '-h'], /^Usage: merchant:create .*--password-stdin[^]*"test_api_key", "test_api_secret"/],
      [['shop:create', '--help'], /^Usage: shop:create [^]*"cashier_key", "test_cashier_key"/],
      [['help', 'deliveries:list'], /^Usage: deliveries:list \(--link ID \| --shop ID\)/],
    ])("%j prints that command's usage, exit 0, and runs nothing", async (args, usage) => {
      const run = await admin(args, unreachable);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(usage);
    });

    it('help for an unknown command is the unknown-command error', async () => {
      const run = await fails(['help', 'shop:delete']);
      expect(run.code).toBe(2);
    });
  });

  describe('merchant:list', () => {
    it('pages through every merchant newest first, with nothing secret, and the pages add up to the whole list', async () => {
      const created = [await newMerchant('list-a@example.com'), await newMerchant('list-b@example.com'), await newMerchant('list-c@example.com')];
      const all = await ok(['merchant:list', '--limit', '100']);
      const merchants = all.merchants as { id: string; email: string; email_confirmed: boolean; created_at: string }[];
      expect(all).toMatchObject({ has_more: false, next_cursor: null });
      expect(merchants.slice(0, 3).map((m) => m.id)).toEqual([...created].reverse());
      expect(merchants[0]).toEqual({
        id: created[2],
        email: 'list-c@example.com',
        email_confirmed: false,
        created_at: expect.stringMatching(/\+03:00$/),
      });
      expect(JSON.stringify(all)).not.toMatch(/password|api_secret|hash/);

      const walked: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Record<string, unknown> = await ok(['merchant:list', '--limit', '2', ...(cursor === null ? [] : ['--cursor', cursor])]);
        const ids = (page.merchants as { id: string }[]).map((m) => m.id);
        expect(ids.length).toBeLessThanOrEqual(2);
        walked.push(...ids);
        cursor = page.next_cursor as string | null;
        expect(page.has_more).toBe(cursor !== null);
      } while (cursor !== null);
      expect(walked).toEqual(merchants.map((m) => m.id));
    });

    it.each([
      ['--limit', '0'],
      ['--limit', '101'],
      ['--limit', 'ten'],
      ['--cursor', 'not-a-cursor'],
    ])('refuses %s %s with exit 2 naming the flag', async (flag, value) => {
      const run = await fails(['merchant:list', flag, value]);
      expect(run.code).toBe(2);
      expect(run.error.message).toMatch(new RegExp(`^${flag}: `));
    });
  });

  describe('shop:list and shop:show', () => {
    it("lists one merchant's shops newest first in pages, or every merchant's", async () => {
      const owner = await newMerchant('shops-owner@example.com');
      const other = await newMerchant('shops-other@example.com');
      const mine: number[] = [];
      for (const name of ['One', 'Two', 'Three']) mine.push(Number((await ok(['shop:create', '--merchant', owner, '--name', name])).shop_id));
      const theirs = Number((await ok(['shop:create', '--merchant', other, '--name', 'Theirs'])).shop_id);

      const first = await ok(['shop:list', '--merchant', owner, '--limit', '2']);
      expect((first.shops as { id: number }[]).map((s) => s.id)).toEqual([mine[2], mine[1]]);
      expect(first.has_more).toBe(true);
      const second = await ok(['shop:list', '--merchant', owner, '--limit', '2', '--cursor', String(first.next_cursor)]);
      expect(second).toEqual({
        shops: [expect.objectContaining({ id: mine[0], name: 'One', merchant_id: owner })],
        has_more: false,
        next_cursor: null,
      });

      const everyone = (await ok(['shop:list', '--limit', '100'])).shops as { id: number }[];
      expect(everyone.slice(0, 4).map((s) => s.id)).toEqual([theirs, mine[2], mine[1], mine[0]]);
      expect(await ok(['shop:list', '--merchant', '00000000-0000-4000-8000-000000000000'])).toEqual({
        shops: [],
        has_more: false,
        next_cursor: null,
      });
    });

    it('shop:show prints the shop as shop:update does, never its secret; an unknown shop is not_found', async () => {
      const merchantId = await newMerchant('show@example.com');
      const { shop_id: shopId } = await ok(
        ['shop:create', '--merchant', merchantId, '--name', 'Shown', '--webhook-url', 'https://93.184.216.34/h', '--webhook-secret-stdin'],
        {},
        'hidden-secret',
      );
      const shown = await ok(['shop:show', '--shop', String(shopId)]);
      expect(shown).toEqual(await ok(['shop:update', '--shop', String(shopId)]));
      expect(shown).toMatchObject({ id: shopId, merchant_id: merchantId, name: 'Shown', has_webhook_secret: true });
      expect(JSON.stringify(shown)).not.toContain('hidden-secret');
      expect((await fails(['shop:show', '--shop', '987654'])).error).toEqual({ code: 'common.err.not_found', message: 'Shop not found' });
      expect((await fails(['shop:show', '--shop', 'abc'])).code).toBe(2);
      expect((await fails(['shop:list', '--merchant', 'abc'])).code).toBe(2);
    });
  });

  describe('link:show and deliveries:list', () => {
    let linksDb: Db;
    let notifierDb: Db;
    let deliveries: DeliveryRepository;
    let merchantId: string;
    let shopId: number;
    let linkId: string;

    /** A delivery of `payment.succeeded` for the link (the inbox keeps the event as it came; only its id matters here). */
    const linkDelivery = async (paymentLinkId: string, livemode = true, onShop = shopId): Promise<string> => {
      const id = randomUUID();
      const eventId = randomUUID();
      const at = '2026-11-22T12:00:00+03:00';
      const data = { payment_link_id: paymentLinkId, id: paymentLinkId, shop_id: onShop, order_id: null, amount: '1.00', merchant_credit: '0.99' };
      const event: PaymentSucceededEvent = {
        event_id: eventId,
        event: 'payment.succeeded',
        occurred_at: at,
        merchant_id: merchantId,
        livemode,
        data: { ...data, status: 'paid', paid_at: at },
      };
      const delivery = {
        id,
        eventId: event.event_id,
        webhookId: `whk_${id}`,
        event: 'payment.succeeded' as const,
        merchantId,
        shopId: onShop,
        paymentLinkId,
        livemode,
        body: Buffer.from('{}'),
        traceparent: null,
        claim: null,
      };
      await deliveries.storeAll([{ event, shopId: onShop, paymentLinkId, body: Buffer.from('{}'), delivery }]);
      return id;
    };
    const testDelivery = async (mode: Mode = 'live', onShop = shopId): Promise<string> => {
      const id = randomUUID();
      await deliveries.addTestDelivery({ id, webhookId: `whk_${id}`, merchantId, shopId: onShop, mode, body: Buffer.from('{}') });
      return id;
    };

    beforeAll(async () => {
      await migrateLinks(database.url, log);
      await migrateNotifier(database.url, log);
      linksDb = new Db({ url: database.url, schema: LINKS_SCHEMA, log });
      notifierDb = new Db({ url: database.url, schema: NOTIFIER_SCHEMA, log });
      deliveries = new DeliveryRepository(notifierDb);
      merchantId = await newMerchant('deliveries@example.com');
      shopId = Number((await ok(['shop:create', '--merchant', merchantId, '--name', 'D'])).shop_id);
      linkId = (await new LinkRepository(linksDb).insert(sampleNewLink({ merchantId, shopId, orderId: 'order-show' }))).id;
    });

    afterAll(async () => {
      await linksDb?.close();
      await notifierDb?.close();
    });

    it('link:show prints a link of either mode, saying which', async () => {
      const testLink = (await new LinkRepository(linksDb).insert(sampleNewLink({ merchantId, shopId, orderId: 'order-test', livemode: false }))).id;
      expect(await ok(['link:show', '--link', testLink])).toMatchObject({ id: testLink, merchant_id: merchantId, livemode: false });
      expect(await ok(['link:show', '--link', linkId])).toMatchObject({ id: linkId, livemode: true });
    });

    it('link:show prints the link as the API does, with its checkout URL and its merchant', async () => {
      const out = await ok(['link:show', '--link', linkId.toUpperCase()], { PUBLIC_BASE_URL: 'https://pay.example.com/' });
      expect(out).toMatchObject({
        id: linkId,
        merchant_id: merchantId,
        shop_id: shopId,
        order_id: 'order-show',
        amount: '1234.56',
        status: 'pending',
        checkout_url: `https://pay.example.com/p/${linkId}`,
        created_at: expect.stringMatching(/\+03:00$/),
      });
      expect((await fails(['link:show', '--link', randomUUID()])).error).toEqual({ code: 'common.err.not_found', message: 'Payment link not found' });
      expect((await fails(['link:show', '--link', '42'])).code).toBe(2);
    });

    it("deliveries:list pages through a shop's or a link's deliveries newest first, filtered by status", async () => {
      const first = await linkDelivery(linkId);
      const otherLink = await linkDelivery(randomUUID());
      const test = await testDelivery();

      const byShop = await ok(['deliveries:list', '--shop', String(shopId)]);
      expect((byShop.deliveries as { id: string }[]).map((d) => d.id)).toEqual([test, otherLink, first]);
      expect((byShop.deliveries as object[])[2]).toEqual({
        id: first,
        webhook_id: `whk_${first}`,
        payment_link_id: linkId,
        shop_id: shopId,
        event: 'payment.succeeded',
        livemode: true,
        status: 'pending',
        attempts: [],
        attempts_omitted: 0,
      });
      const page1 = await ok(['deliveries:list', '--shop', String(shopId), '--limit', '2']);
      expect(page1).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
      const page2 = await ok(['deliveries:list', '--shop', String(shopId), '--limit', '2', '--cursor', String(page1.next_cursor)]);
      expect([...(page1.deliveries as { id: string }[]), ...(page2.deliveries as { id: string }[])].map((d) => d.id)).toEqual([
        test,
        otherLink,
        first,
      ]);
      expect(page2).toMatchObject({ has_more: false, next_cursor: null });

      expect((await ok(['deliveries:list', '--link', linkId])).deliveries).toEqual([expect.objectContaining({ id: first })]);
      expect(await ok(['deliveries:list', '--shop', String(shopId), '--status', 'succeeded'])).toEqual({
        deliveries: [],
        has_more: false,
        next_cursor: null,
      });
    });

    it('deliveries:list refuses a cursor past bigint with exit 2 naming --cursor, never printing a database message', async () => {
      for (const seq of ['9223372036854775808', '9999999999999999999']) {
        const cursor = Buffer.from(`v1:${seq}`).toString('base64url');
        const run = await fails(['deliveries:list', '--shop', String(shopId), '--cursor', cursor]);
        expect({ seq, code: run.code, error: run.error.code }).toEqual({ seq, code: 2, error: 'common.err.validation_failed' });
        expect(run.error.message).toMatch(/^--cursor: /);
        expect(run.stderr).not.toMatch(/bigint|out of range/i);
      }
    });

    it('deliveries:list shows both modes, each delivery with its livemode, unless --mode names one', async () => {
      const shop = Number((await ok(['shop:create', '--merchant', merchantId, '--name', 'Both modes'])).shop_id);
      const links = new LinkRepository(linksDb);
      const testLink = (await links.insert(sampleNewLink({ merchantId, shopId: shop, orderId: 'order-modes', livemode: false }))).id;
      const live = await linkDelivery(linkId, true, shop);
      const test = await linkDelivery(testLink, false, shop);
      const testWebhook = await testDelivery('test', shop);
      const ids = async (args: string[]) =>
        ((await ok(['deliveries:list', ...args])).deliveries as { id: string; livemode: boolean }[]).map((d) => [d.id, d.livemode]);

      expect(await ids(['--shop', String(shop)])).toEqual([
        [testWebhook, false],
        [test, false],
        [live, true],
      ]);
      expect(await ids(['--shop', String(shop), '--mode', 'test'])).toEqual([
        [testWebhook, false],
        [test, false],
      ]);
      expect(await ids(['--shop', String(shop), '--mode', 'live'])).toEqual([[live, true]]);
      // A test link is found in its own mode, without naming it.
      expect(await ids(['--link', testLink])).toEqual([[test, false]]);
      expect(await ids(['--link', testLink, '--mode', 'live'])).toEqual([]);
    });

    it.each([
      ['neither --link nor --shop', [], 2, 'common.err.validation_failed'],
      ['a bad mode', ['--shop', '1', '--mode', 'TEST'], 2, 'common.err.validation_failed'],
      ['a bad status', ['--shop', '1', '--status', 'lost'], 2, 'common.err.validation_failed'],
      ['an unknown shop', ['--shop', '987654'], 1, 'common.err.not_found'],
      ['an unknown link', ['--link', '00000000-0000-4000-8000-000000000000'], 1, 'common.err.not_found'],
    ])('deliveries:list refuses %s', async (_name, args, code, errorCode) => {
      const run = await fails(['deliveries:list', ...args]);
      expect({ code: run.code, error: run.error.code }).toEqual({ code, error: errorCode });
    });
  });
});
