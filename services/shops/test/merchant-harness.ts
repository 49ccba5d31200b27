import { randomUUID } from 'node:crypto';
import { headers, type NatsConnection } from 'nats';
import pino from 'pino';
import { BusClient, IdentityTokens, connectNats } from '@pl/bus';
import type { RunningService } from '@pl/config';
import type { Identity, Mode } from '@pl/contracts';
import { Db } from '@pl/db';
import { createTestDatabase, uniqueNamespace, type TestDatabase } from '@pl/testing';
import { startShops } from '../src/app';
import { loadConfig } from '../src/config';
import { migrateShops, SHOPS_SCHEMA } from '../src/data/migrate';
import { ShopRepository } from '../src/data/shop.repository';
import { SecretBox } from '../src/domain/secret-box';

const log = pino({ level: 'silent' });
const SECRET = 'shops-merchant-test-identity-secret-0123456789';

/** RFC 3339 in Moscow time to the second, as every date of the session API. */
export const MOSCOW_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+03:00$/;

/** A public address literal: passes the webhook-target rule without DNS. */
export const PUBLIC_HOOK = 'https://93.184.216.34/hook';

export interface MerchantOptions {
  auth?: 'session' | 'api_key' | 'cashier';
  emailConfirmed?: boolean;
  shopId?: number;
  mode?: Mode;
}

/** A merchant identity as the gateway vouches for it: a confirmed live session unless told otherwise. */
export const merchant = (merchantId: string, options: MerchantOptions = {}): Identity => ({
  kind: 'merchant',
  merchant_id: merchantId,
  auth: options.auth ?? 'session',
  email_confirmed: options.emailConfirmed ?? true,
  mode: options.mode ?? 'live',
  ...(options.shopId === undefined ? {} : { shop_id: options.shopId }),
});

export const gatewayService: Identity = { kind: 'service', service: 'gateway' };

/** The shops service on a database of its own, with a bus client and a repository on the same data. */
export interface ShopsHarness {
  bus: BusClient;
  nc: NatsConnection;
  namespace: string;
  db: Db;
  repo: ShopRepository;
  /** Sends a body as it is, bypassing the client's own validation, and returns the reply envelope. */
  raw(subject: { name: string }, body: unknown, identity: Identity): Promise<unknown>;
  /** A shop as an operator registers it (admin CLI path), with its live and test cashier keys. */
  seedShop(merchantId: string, webhookUrl?: string | null): Promise<{ shopId: number; cashierKey: string; testCashierKey: string }>;
  close(): Promise<void>;
}

export async function startShopsHarness(name: string, env: Record<string, string> = {}): Promise<ShopsHarness> {
  const database: TestDatabase = await createTestDatabase(name);
  await migrateShops(database.url, log);
  const namespace = uniqueNamespace(name);
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    BUS_NAMESPACE: namespace,
    IDENTITY_TOKEN_SECRET: SECRET,
    OPS_PORT: '0',
    ...env,
  });
  const running: RunningService = await startShops(config, log);
  const db = new Db({ url: database.url, schema: SHOPS_SCHEMA, log });
  const repo = new ShopRepository(db, SecretBox.fromBase64(config.WEBHOOK_SECRET_KEY));
  const nc = await connectNats('nats://127.0.0.1:4222', `${name}-test`, log);
  const tokens = new IdentityTokens(SECRET);
  return {
    bus: new BusClient(nc, namespace, tokens),
    nc,
    namespace,
    db,
    repo,
    async raw(subject, body, identity) {
      const h = headers();
      h.set('Identity-Token', tokens.sign(identity));
      const reply = await nc.request(`${namespace}.${subject.name}`, JSON.stringify(body), { timeout: 5000, headers: h });
      return JSON.parse(Buffer.from(reply.data).toString('utf8')) as unknown;
    },
    async seedShop(merchantId, webhookUrl = PUBLIC_HOOK) {
      const { shop, cashierKey, testCashierKey } = await repo.createShop({
        merchant_id: merchantId,
        name: `Seeded ${randomUUID()}`,
        status: 'approved',
        fee_payer: 'merchant',
        crypto_bps: 100,
        sbp_bps: 100,
        webhook_url: webhookUrl,
        webhook_secret: 'seeded-secret',
      });
      return { shopId: shop.id, cashierKey, testCashierKey };
    },
    async close() {
      await nc.close();
      await running.stop();
      await db.close();
      await database.drop();
    },
  };
}
