import { randomUUID } from 'node:crypto';
import type { NatsConnection } from 'nats';
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
const SECRET = 'shops-webhook-target-test-identity-secret-0123';
const notifier: Identity = { kind: 'service', service: 'notifier' };

describe('shops.webhook_target over NATS', () => {
  let database: TestDatabase;
  let running: RunningService;
  let nc: NatsConnection;
  let db: Db;
  let bus: BusClient;
  const owner = randomUUID();
  let signedShop: number;
  let unsignedShop: number;
  let silentShop: number;

  beforeAll(async () => {
    database = await createTestDatabase('shopstarget');
    await migrateShops(database.url, log);
    const namespace = uniqueNamespace('shopstarget');
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      BUS_NAMESPACE: namespace,
      IDENTITY_TOKEN_SECRET: SECRET,
      OPS_PORT: '0',
    });
    running = await startShops(config, log);
    db = new Db({ url: database.url, schema: SHOPS_SCHEMA, log });
    const repo = new ShopRepository(db, SecretBox.fromBase64(config.WEBHOOK_SECRET_KEY));
    const shop = (name: string, webhook_url: string | null, webhook_secret: string | null) =>
      repo.createShop({
        merchant_id: owner,
        name,
        status: 'approved',
        fee_payer: 'merchant',
        crypto_bps: 100,
        sbp_bps: 100,
        webhook_url,
        webhook_secret,
      });
    signedShop = (await shop('Signed', 'https://example.com/hook', 'topsecret-ключ')).shop.id;
    unsignedShop = (await shop('Unsigned', 'https://example.com/plain', null)).shop.id;
    silentShop = (await shop('Silent', null, null)).shop.id;
    nc = await connectNats('nats://127.0.0.1:4222', 'shops-target-test', log);
    bus = new BusClient(nc, namespace, new IdentityTokens(SECRET));
  });

  afterAll(async () => {
    await nc?.close();
    await running?.stop();
    await db?.close();
    await database?.drop();
  });

  it('answers a platform service with the url and the decrypted secret', async () => {
    await expect(bus.request(subjects.shopsWebhookTarget, { shop_id: signedShop }, notifier)).resolves.toEqual({
      shop_id: signedShop,
      url: 'https://example.com/hook',
      secret: 'topsecret-ключ',
      previous_secret: null,
      webhook_events: ['payment.succeeded'],
    });
  });

  it('answers a null secret for a shop without one and nulls for a shop without a url', async () => {
    await expect(bus.request(subjects.shopsWebhookTarget, { shop_id: unsignedShop }, notifier)).resolves.toEqual({
      shop_id: unsignedShop,
      url: 'https://example.com/plain',
      secret: null,
      previous_secret: null,
      webhook_events: ['payment.succeeded'],
    });
    await expect(bus.request(subjects.shopsWebhookTarget, { shop_id: silentShop }, notifier)).resolves.toEqual({
      shop_id: silentShop,
      url: null,
      secret: null,
      previous_secret: null,
      webhook_events: ['payment.succeeded'],
    });
  });

  it('answers the event types the shop is sent, also for a shop without a url, and none when it chose none', async () => {
    await db.query("UPDATE shops SET webhook_events = '{payment.failed,refund.succeeded}' WHERE id = $1", [silentShop]);
    await expect(bus.request(subjects.shopsWebhookTarget, { shop_id: silentShop }, notifier)).resolves.toMatchObject({
      url: null,
      webhook_events: ['payment.failed', 'refund.succeeded'],
    });
    await db.query("UPDATE shops SET webhook_events = '{}' WHERE id = $1", [silentShop]);
    await expect(bus.request(subjects.shopsWebhookTarget, { shop_id: silentShop }, notifier)).resolves.toMatchObject({ webhook_events: [] });
  });

  it.each(['live', 'test'] as const)('refuses the owning merchant (%s mode) with forbidden, so a secret never reaches a merchant', async (mode) => {
    const merchant: Identity = { kind: 'merchant', merchant_id: owner, auth: 'api_key', email_confirmed: true, mode };
    await expect(bus.request(subjects.shopsWebhookTarget, { shop_id: signedShop }, merchant)).rejects.toMatchObject({
      kind: 'forbidden',
      code: 'common.err.forbidden',
    });
  });

  it('answers not_found for an unknown shop', async () => {
    await expect(bus.request(subjects.shopsWebhookTarget, { shop_id: 987_654 }, notifier)).rejects.toMatchObject({
      kind: 'not_found',
      code: 'common.err.not_found',
    });
  });
});
