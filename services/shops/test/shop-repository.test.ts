import { createHash, randomBytes, randomUUID } from 'node:crypto';
import pino from 'pino';
import { Db } from '@pl/db';
import { createTestDatabase, type TestDatabase } from '@pl/testing';
import { migrateShops, SHOPS_SCHEMA } from '../src/data/migrate';
import { ShopRepository } from '../src/data/shop.repository';
import { createShop, type ShopUseCaseDeps } from '../src/domain/create-shop';
import { SecretBox } from '../src/domain/secret-box';
import { updateShop } from '../src/domain/update-shop';

const log = pino({ level: 'silent' });

describe('shop repository and use cases', () => {
  let database: TestDatabase;
  let db: Db;
  let repo: ShopRepository;
  let strict: ShopUseCaseDeps;
  const merchantId = randomUUID();

  beforeAll(async () => {
    database = await createTestDatabase('shoprepo');
    await migrateShops(database.url, log);
    db = new Db({ url: database.url, schema: SHOPS_SCHEMA, log });
    repo = new ShopRepository(db, new SecretBox(randomBytes(32)));
    strict = { shops: repo, webhookPolicy: { allowPrivateTargets: false, resolve: async () => ['93.184.216.34'] } };
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('creates a shop with the product defaults and an active cashier key of each mode', async () => {
    const { shop, cashierKey, testCashierKey } = await createShop(strict, { merchant_id: merchantId, name: 'Defaults' });
    expect(shop).toMatchObject({ status: 'pending', feePayer: 'merchant', cryptoBps: 100, sbpBps: 100, webhookUrl: null });
    expect(cashierKey).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect(testCashierKey).toMatch(/^svc_test_[A-Za-z0-9_-]{43}$/);
    const stored = await db.query<{ mode: string; active: boolean }>(
      'SELECT mode, revoked_at IS NULL AS active FROM cashier_keys WHERE shop_id = $1 ORDER BY mode',
      [shop.id],
    );
    expect(stored).toEqual([
      { mode: 'live', active: true },
      { mode: 'test', active: true },
    ]);
    await expect(repo.findByCashierKey(cashierKey)).resolves.toMatchObject({ id: shop.id });
    await expect(repo.findByCashierKey(testCashierKey)).resolves.toMatchObject({ id: shop.id });
  });

  it('stores only the digests of the cashier keys, each under the mode its prefix names', async () => {
    const { shop, cashierKey, testCashierKey } = await createShop(strict, { merchant_id: merchantId, name: 'Digest' });
    const rows = await db.query<{ key_sha256: Buffer; mode: string }>('SELECT key_sha256, mode FROM cashier_keys WHERE shop_id = $1', [shop.id]);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.key_sha256).toHaveLength(32);
      expect(row.key_sha256.toString('utf8')).not.toContain(cashierKey);
      expect(row.key_sha256.toString('utf8')).not.toContain(testCashierKey);
    }
    const byDigest = Object.fromEntries(rows.map((r) => [r.key_sha256.toString('hex'), r.mode]));
    expect(byDigest[createHash('sha256').update(cashierKey).digest('hex')]).toBe('live');
    expect(byDigest[createHash('sha256').update(testCashierKey).digest('hex')]).toBe('test');
  });

  it('allows one active cashier key per shop and mode, and none stored without a mode', async () => {
    const { shop } = await createShop(strict, { merchant_id: merchantId, name: 'Unique' });
    await expect(
      db.query("INSERT INTO cashier_keys (key_sha256, shop_id, mode) VALUES ($1, $2, 'test')", [randomBytes(32), shop.id]),
    ).rejects.toMatchObject({ code: '23505' });
    await expect(db.query('INSERT INTO cashier_keys (key_sha256, shop_id) VALUES ($1, $2)', [randomBytes(32), shop.id])).rejects.toMatchObject({
      code: '23502',
    });
  });

  it('refuses a webhook URL that resolves to a private address with validation_failed', async () => {
    const privateDns: ShopUseCaseDeps = { shops: repo, webhookPolicy: { allowPrivateTargets: false, resolve: async () => ['10.0.0.7'] } };
    await expect(createShop(privateDns, { merchant_id: merchantId, name: 'X', webhook_url: 'https://internal.example/hook' })).rejects.toMatchObject({
      code: 'common.err.validation_failed',
    });
  });

  it('refuses out-of-range rates and a blank name with validation_failed', async () => {
    await expect(createShop(strict, { merchant_id: merchantId, name: ' ', crypto_bps: 10001 })).rejects.toMatchObject({
      code: 'common.err.validation_failed',
    });
  });

  it('decrypts the webhook target for the notifier, and no secret without a URL', async () => {
    const { shop } = await createShop(strict, {
      merchant_id: merchantId,
      name: 'Hooks',
      webhook_url: 'https://hooks.example/in',
      webhook_secret: 'whsec-🔑',
    });
    const webhookEvents = ['payment.succeeded'];
    await expect(repo.getWebhookTarget(shop.id)).resolves.toEqual({
      url: 'https://hooks.example/in',
      secret: 'whsec-🔑',
      previousSecret: null,
      webhookEvents,
    });
    await updateShop(strict, shop.id, { webhook_secret: null });
    await expect(repo.getWebhookTarget(shop.id)).resolves.toEqual({
      url: 'https://hooks.example/in',
      secret: null,
      previousSecret: null,
      webhookEvents,
    });
    await updateShop(strict, shop.id, { webhook_url: null });
    // No URL: nothing to sign for, but the subscription still decides which events get a (failing) delivery.
    await expect(repo.getWebhookTarget(shop.id)).resolves.toEqual({ url: null, secret: null, previousSecret: null, webhookEvents });
    await expect(repo.getWebhookTarget(999_999)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('updates only the given fields and moves updated_at', async () => {
    const { shop } = await createShop(strict, { merchant_id: merchantId, name: 'Patch', crypto_bps: 120 });
    const updated = await updateShop(strict, shop.id, { status: 'blocked', sbp_bps: 0 });
    expect(updated).toMatchObject({ name: 'Patch', status: 'blocked', cryptoBps: 120, sbpBps: 0 });
    expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(shop.updatedAt.getTime());
    await expect(updateShop(strict, 999_999, { name: 'Nope' })).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('keeps the event subscription: payment.succeeded by default, any list of known types, none; never an unknown type or a repeat', async () => {
    const { shop } = await createShop(strict, { merchant_id: merchantId, name: 'Events' });
    expect(shop.webhookEvents).toEqual(['payment.succeeded']);
    const chosen = await updateShop(strict, shop.id, { webhook_events: ['payment_link.expired', 'refund.failed'] });
    expect(chosen.webhookEvents).toEqual(['payment_link.expired', 'refund.failed']);
    expect((await updateShop(strict, shop.id, { webhook_events: [] })).webhookEvents).toEqual([]);
    for (const bad of [['payment.refunded'], ['payment.failed', 'payment.failed']]) {
      await expect(updateShop(strict, shop.id, { webhook_events: bad as never })).rejects.toMatchObject({ code: 'common.err.validation_failed' });
    }
    await expect(repo.getShop(shop.id)).resolves.toMatchObject({ webhookEvents: [] });
    // The database refuses an unknown type or a NULL element whatever writes it (an operator's SQL).
    for (const bad of ['{payment.refunded}', '{NULL}']) {
      await expect(db.query('UPDATE shops SET webhook_events = $2 WHERE id = $1', [shop.id, bad])).rejects.toMatchObject({ code: '23514' });
    }
  });

  describe('webhook secret rotation', () => {
    const hooked = async (secret: string | null) =>
      (await createShop(strict, { merchant_id: merchantId, name: 'Rotating', webhook_url: 'https://hooks.example/in', webhook_secret: secret })).shop;

    it('keeps the replaced secret signing until the end of the overlap', async () => {
      const shop = await hooked('first-secret');
      const before = Date.now();
      const until = await repo.rotateWebhookSecret(shop.id, 'second-secret', 60);
      expect(until?.getTime()).toBeGreaterThanOrEqual(before + 60 * 60_000 - 1000);
      expect(until?.getTime()).toBeLessThanOrEqual(Date.now() + 60 * 60_000 + 1000);
      await expect(repo.getWebhookTarget(shop.id)).resolves.toEqual({
        url: 'https://hooks.example/in',
        secret: 'second-secret',
        previousSecret: 'first-secret',
        webhookEvents: ['payment.succeeded'],
      });
      await expect(repo.getShop(shop.id)).resolves.toMatchObject({ hasWebhookSecret: true, previousSecretValidUntil: until });
    });

    it('stores the previous secret sealed, never as plain text', async () => {
      const shop = await hooked('plain-previous-secret');
      await repo.rotateWebhookSecret(shop.id, 'next', 10);
      const [row] = await db.query<{ previous_secret_enc: Buffer }>('SELECT previous_secret_enc FROM shops WHERE id = $1', [shop.id]);
      expect(row?.previous_secret_enc.toString('latin1')).not.toContain('plain-previous-secret');
    });

    it('reads an overlap that has ended as no previous secret', async () => {
      const shop = await hooked('old');
      await repo.rotateWebhookSecret(shop.id, 'new', 30);
      await db.query("UPDATE shops SET previous_secret_valid_until = now() - interval '1 second' WHERE id = $1", [shop.id]);
      await expect(repo.getWebhookTarget(shop.id)).resolves.toMatchObject({ secret: 'new', previousSecret: null });
      await expect(repo.getShop(shop.id)).resolves.toMatchObject({ previousSecretValidUntil: null });
    });

    it('ends the old secret at once with an overlap of 0, and has no previous when there was no secret', async () => {
      const shop = await hooked('old');
      await expect(repo.rotateWebhookSecret(shop.id, 'new', 0)).resolves.toBeNull();
      await expect(repo.getWebhookTarget(shop.id)).resolves.toMatchObject({ secret: 'new', previousSecret: null });
      const bare = await hooked(null);
      await expect(repo.rotateWebhookSecret(bare.id, 'first', 60)).resolves.toBeNull();
      await expect(repo.getWebhookTarget(bare.id)).resolves.toMatchObject({ secret: 'first', previousSecret: null });
      await expect(repo.rotateWebhookSecret(999_999, 'x', 0)).rejects.toMatchObject({ kind: 'not_found' });
    });

    it('ends any overlap when an operator sets the secret outright', async () => {
      const shop = await hooked('old');
      await repo.rotateWebhookSecret(shop.id, 'new', 60);
      await updateShop(strict, shop.id, { webhook_secret: 'operator-set' });
      await expect(repo.getWebhookTarget(shop.id)).resolves.toMatchObject({ secret: 'operator-set', previousSecret: null });
      await expect(repo.getShop(shop.id)).resolves.toMatchObject({ previousSecretValidUntil: null });
    });
  });

  it.each([
    ['live', 'test'],
    ['test', 'live'],
  ] as const)('leaves exactly one active %s key after concurrent reissues, the first one stops and the %s key works on', async (mode, other) => {
    const created = await createShop(strict, { merchant_id: merchantId, name: 'Till' });
    const first = { live: created.cashierKey, test: created.testCashierKey };
    const keys = Array.from({ length: 5 }, (_, i) => `svc_${mode}_concurrent_${String(i)}_${randomUUID()}`);
    await Promise.all(keys.map((k) => repo.replaceCashierKeys(created.shop.id, k)));
    const active = await db.query<{ mode: string; n: string }>(
      'SELECT mode, count(*) AS n FROM cashier_keys WHERE shop_id = $1 AND revoked_at IS NULL GROUP BY mode ORDER BY mode',
      [created.shop.id],
    );
    expect(active).toEqual([
      { mode: 'live', n: '1' },
      { mode: 'test', n: '1' },
    ]);
    await expect(repo.findByCashierKey(first[mode])).resolves.toBeNull();
    await expect(repo.findByCashierKey(first[other])).resolves.toMatchObject({ id: created.shop.id });
    const found = await Promise.all(keys.map((k) => repo.findByCashierKey(k)));
    expect(found.filter((f) => f !== null)).toHaveLength(1);
    await expect(repo.replaceCashierKeys(999_999, `svc_${mode}_${randomUUID()}`)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('finds nothing for a key stored under the other mode than its prefix names', async () => {
    const { shop } = await createShop(strict, { merchant_id: merchantId, name: 'Mislabelled' });
    const key = `svc_test_${randomUUID()}`;
    await db.query("UPDATE cashier_keys SET revoked_at = now() WHERE shop_id = $1 AND mode = 'live'", [shop.id]);
    await db.query("INSERT INTO cashier_keys (key_sha256, shop_id, mode) VALUES ($1, $2, 'live')", [
      createHash('sha256').update(key).digest(),
      shop.id,
    ]);
    await expect(repo.findByCashierKey(key)).resolves.toBeNull();
  });

  it('finds nothing for a key without a cashier key prefix, and refuses to store one', async () => {
    await expect(repo.findByCashierKey(`pk_test_${randomUUID()}`)).resolves.toBeNull();
    const { shop } = await createShop(strict, { merchant_id: merchantId, name: 'Prefix' });
    await expect(repo.replaceCashierKeys(shop.id, `svc_${randomUUID()}`)).rejects.toThrow(/prefix/);
  });
});
