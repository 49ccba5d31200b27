import { randomUUID } from 'node:crypto';
import { headers, type NatsConnection } from 'nats';
import pino from 'pino';
import { BusClient, IdentityTokens, connectNats } from '@pl/bus';
import type { RunningService } from '@pl/config';
import { subjects, type Identity } from '@pl/contracts';
import { Db } from '@pl/db';
import { createTestDatabase, uniqueNamespace, type TestDatabase } from '@pl/testing';
import { startShops } from '../src/app';
import { loadConfig } from '../src/config';
import { migrateShops, SHOPS_SCHEMA } from '../src/data/migrate';
import { ShopRepository } from '../src/data/shop.repository';
import { SecretBox } from '../src/domain/secret-box';

const log = pino({ level: 'silent' });
const SECRET = 'shops-component-test-identity-secret-0123456789';

const merchant = (merchantId: string): Identity => ({
  kind: 'merchant',
  merchant_id: merchantId,
  auth: 'api_key',
  email_confirmed: true,
  mode: 'live',
});
const service: Identity = { kind: 'service', service: 'gateway' };

describe('shops service over NATS', () => {
  let database: TestDatabase;
  let running: RunningService;
  let nc: NatsConnection;
  let db: Db;
  let repo: ShopRepository;
  let bus: BusClient;
  let namespace: string;
  const owner = randomUUID();
  const stranger = randomUUID();
  let shopId: number;
  let cashierKey: string;
  let testCashierKey: string;

  beforeAll(async () => {
    database = await createTestDatabase('shops');
    await migrateShops(database.url, log);
    namespace = uniqueNamespace('shops');
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      BUS_NAMESPACE: namespace,
      IDENTITY_TOKEN_SECRET: SECRET,
      OPS_PORT: '0',
    });
    running = await startShops(config, log);
    db = new Db({ url: database.url, schema: SHOPS_SCHEMA, log });
    repo = new ShopRepository(db, SecretBox.fromBase64(config.WEBHOOK_SECRET_KEY));
    const created = await repo.createShop({
      merchant_id: owner,
      name: 'Coffee corner',
      status: 'approved',
      fee_payer: 'split',
      crypto_bps: 150,
      sbp_bps: 90,
      webhook_url: 'https://example.com/hook',
      webhook_secret: 'whsec-test',
    });
    shopId = created.shop.id;
    cashierKey = created.cashierKey;
    testCashierKey = created.testCashierKey;
    nc = await connectNats('nats://127.0.0.1:4222', 'shops-test', log);
    bus = new BusClient(nc, namespace, new IdentityTokens(SECRET));
  });

  afterAll(async () => {
    await nc?.close();
    await running?.stop();
    await db?.close();
    await database?.drop();
  });

  it('answers the owning merchant with the shop view', async () => {
    await expect(bus.request(subjects.shopsGet, { shop_id: shopId }, merchant(owner))).resolves.toEqual({
      id: shopId,
      merchant_id: owner,
      name: 'Coffee corner',
      status: 'approved',
      fee_payer: 'split',
      crypto_bps: 150,
      sbp_bps: 90,
      webhook_url: 'https://example.com/hook',
      webhook_events: ['payment.succeeded'],
      payment_methods: { sbp: true, crypto_networks: ['USDT-TRC20', 'USDT-ERC20', 'USDT-TON', 'BTC-BTC', 'ETH-ETH', 'TON-TON'] },
    });
  });

  it('refuses another merchant with forbidden', async () => {
    await expect(bus.request(subjects.shopsGet, { shop_id: shopId }, merchant(stranger))).rejects.toMatchObject({
      kind: 'forbidden',
      code: 'common.err.forbidden',
      message: 'Shop belongs to another merchant',
    });
  });

  it('refuses a cashier identity of the same merchant bound to another shop', async () => {
    const cashier: Identity = { ...merchant(owner), auth: 'cashier', shop_id: shopId + 1000 } as Identity;
    await expect(bus.request(subjects.shopsGet, { shop_id: shopId }, cashier)).rejects.toMatchObject({ kind: 'forbidden' });
  });

  it('answers not_found for an unknown shop, before any ownership check', async () => {
    await expect(bus.request(subjects.shopsGet, { shop_id: 999_999 }, merchant(stranger))).rejects.toMatchObject({
      kind: 'not_found',
      code: 'common.err.not_found',
      message: 'Shop not found',
    });
  });

  it('lets a platform service read any shop', async () => {
    await expect(bus.request(subjects.shopsGet, { shop_id: shopId }, service)).resolves.toMatchObject({ id: shopId });
  });

  it('finds the shop of a cashier key for a platform service', async () => {
    await expect(bus.request(subjects.shopsByCashierKey, { cashier_key: cashierKey }, service)).resolves.toMatchObject({
      id: shopId,
      merchant_id: owner,
    });
  });

  it('finds the same shop by its test cashier key', async () => {
    await expect(bus.request(subjects.shopsByCashierKey, { cashier_key: testCashierKey }, service)).resolves.toMatchObject({
      id: shopId,
      merchant_id: owner,
    });
  });

  it("answers unauthorized for a key given the other mode's prefix: the digest covers the prefix", async () => {
    const live = cashierKey.slice('svc_live_'.length);
    const test = testCashierKey.slice('svc_test_'.length);
    for (const swapped of [`svc_test_${live}`, `svc_live_${test}`]) {
      await expect(bus.request(subjects.shopsByCashierKey, { cashier_key: swapped }, service)).rejects.toMatchObject({ kind: 'unauthorized' });
    }
  });

  it('answers unauthorized for an unknown cashier key', async () => {
    for (const unknown of [`svc_live_${'A'.repeat(43)}`, `svc_test_${'A'.repeat(43)}`]) {
      await expect(bus.request(subjects.shopsByCashierKey, { cashier_key: unknown }, service)).rejects.toMatchObject({
        kind: 'unauthorized',
      });
    }
    await expect(bus.request(subjects.shopsByCashierKey, { cashier_key: 'pk_live_x' }, service)).rejects.toMatchObject({
      kind: 'unauthorized',
    });
  });

  it.each(['live', 'test'] as const)('answers unauthorized for a revoked %s cashier key, and the other mode keeps its key', async (mode) => {
    const created = await repo.createShop({
      merchant_id: owner,
      name: 'Revoked',
      status: 'approved',
      fee_payer: 'merchant',
      crypto_bps: 100,
      sbp_bps: 100,
      webhook_url: null,
      webhook_secret: null,
    });
    const keys = { live: created.cashierKey, test: created.testCashierKey };
    await db.query('UPDATE cashier_keys SET revoked_at = now() WHERE shop_id = $1 AND mode = $2', [created.shop.id, mode]);
    await expect(bus.request(subjects.shopsByCashierKey, { cashier_key: keys[mode] }, service)).rejects.toMatchObject({
      kind: 'unauthorized',
    });
    const other = mode === 'live' ? keys.test : keys.live;
    await expect(bus.request(subjects.shopsByCashierKey, { cashier_key: other }, service)).resolves.toMatchObject({ id: created.shop.id });
  });

  it('refuses a cashier-key lookup by a merchant identity, even with a valid key', async () => {
    await expect(bus.request(subjects.shopsByCashierKey, { cashier_key: cashierKey }, merchant(owner))).rejects.toMatchObject({
      kind: 'forbidden',
    });
  });

  it('refuses a token signed with another secret', async () => {
    const foreign = new BusClient(nc, namespace, new IdentityTokens('some-other-secret-that-is-long-enough-000'));
    await expect(foreign.request(subjects.shopsGet, { shop_id: shopId }, service)).rejects.toMatchObject({
      kind: 'unauthorized',
    });
  });

  it('refuses an expired token', async () => {
    const expired = new BusClient(nc, namespace, new IdentityTokens(SECRET, -60));
    await expect(expired.request(subjects.shopsGet, { shop_id: shopId }, merchant(owner))).rejects.toMatchObject({
      kind: 'unauthorized',
    });
  });

  it('refuses a message that breaks the contract with validation_failed', async () => {
    const h = headers();
    h.set('Identity-Token', new IdentityTokens(SECRET).sign(service));
    const raw = await nc.request(`${namespace}.${subjects.shopsGet.name}`, JSON.stringify({ shop_id: 'one' }), {
      timeout: 2000,
      headers: h,
    });
    expect(JSON.parse(Buffer.from(raw.data).toString('utf8'))).toMatchObject({
      ok: false,
      error: { code: 'common.err.validation_failed' },
    });
  });

  it('reports ready on its ops port', async () => {
    const res = await fetch(`http://127.0.0.1:${running.opsPort}/readyz`);
    expect(res.status).toBe(200);
  });
});
