import { randomBytes } from 'node:crypto';
import { Db } from '@pl/db';
import { createLogger, type Logger } from '@pl/telemetry';
import { createTestDatabase, FaultProxy, uniqueNamespace, type TestDatabase } from '@pl/testing';
import { AccountRepository } from '../../services/gateway/src/data/account.repository';
import { migrateGateway } from '../../services/gateway/src/data/migrate';
import { loadConfig as gatewayConfig } from '../../services/gateway/src/config';
import { startGateway } from '../../services/gateway/src/app';
import { loadConfig as linksConfig } from '../../services/links/src/config';
import { startLinks } from '../../services/links/src/app';
import { migrateLinks } from '../../services/links/src/data/migrate';
import { loadConfig as shopsConfig } from '../../services/shops/src/config';
import { startShops } from '../../services/shops/src/app';
import { migrateShops } from '../../services/shops/src/data/migrate';
import { ShopRepository } from '../../services/shops/src/data/shop.repository';
import { SecretBox } from '../../services/shops/src/domain/secret-box';
import { httpClient, type HttpClient } from './http';

const PG_URL = process.env.TEST_DATABASE_HOST_URL ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

export interface TestMerchant {
  id: string;
  email: string;
  password: string;
  apiKey: string;
  apiSecret: string;
  /** Headers of the account API key pair. */
  keys: Record<string, string>;
}

export interface TestShop {
  id: number;
  cashierKey: string;
}

export interface ShopOptions {
  status?: 'approved' | 'pending' | 'rejected' | 'blocked';
  feePayer?: 'merchant' | 'client' | 'split';
  cryptoBps?: number;
  sbpBps?: number;
}

export interface SystemOptions {
  /** Put Postgres, Redis and NATS behind fault proxies that the test can cut. */
  faults?: boolean;
  /** Extra environment for every service. */
  env?: Record<string, string>;
}

export interface TestSystem {
  http: HttpClient;
  baseUrl: string;
  namespace: string;
  database: TestDatabase;
  faults: { postgres: FaultProxy; redis: FaultProxy; nats: FaultProxy } | undefined;
  merchant(options?: { emailConfirmed?: boolean }): Promise<TestMerchant>;
  shop(merchantId: string, options?: ShopOptions): Promise<TestShop>;
  /** A merchant with an approved shop, the usual starting point. */
  merchantWithShop(options?: ShopOptions & { emailConfirmed?: boolean }): Promise<{ merchant: TestMerchant; shop: TestShop }>;
  login(merchant: TestMerchant): Promise<string>;
  stop(): Promise<void>;
}

const proxyFor = async (url: string): Promise<FaultProxy> => {
  const u = new URL(url);
  return new FaultProxy(u.hostname, Number(u.port)).start();
};

/**
 * Starts the whole platform in this process — gateway, links and shops — on port 0, against a fresh
 * database, a NATS subject namespace and a Redis key prefix of its own, so test files run in parallel.
 */
export async function startSystem(options: SystemOptions = {}): Promise<TestSystem> {
  const log: Logger = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const database = await createTestDatabase('it');
  await migrateGateway(database.url, log);
  await migrateShops(database.url, log);
  await migrateLinks(database.url, log);

  const faults = options.faults
    ? { postgres: await proxyFor(PG_URL), redis: await proxyFor(REDIS_URL), nats: await proxyFor(NATS_URL) }
    : undefined;
  const namespace = uniqueNamespace('it');
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: faults ? faults.postgres.rewrite(database.url) : database.url,
    REDIS_URL: faults ? faults.redis.rewrite(REDIS_URL) : REDIS_URL,
    NATS_URL: faults ? faults.nats.rewrite(NATS_URL) : NATS_URL,
    BUS_NAMESPACE: namespace,
    REDIS_KEY_PREFIX: `${namespace}:`,
    GATEWAY_PORT: '0',
    OPS_PORT: '0',
    NATS_REQUEST_TIMEOUT_MS: '2000',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    ...options.env,
  };
  const services = [
    await startShops(shopsConfig(env), log),
    await startLinks(linksConfig(env), log),
  ];
  const gateway = await startGateway(gatewayConfig(env), log);
  services.push(gateway);
  const baseUrl = `http://127.0.0.1:${gateway.port}`;
  const http = httpClient(baseUrl);

  // Test fixtures go straight to the owning repositories (as the admin CLI does), not through the proxies.
  const accountsDb = new Db({ url: database.url, schema: 'gateway', log });
  const shopsDb = new Db({ url: database.url, schema: 'shops', log });
  const accounts = new AccountRepository(accountsDb);
  const shops = new ShopRepository(shopsDb, SecretBox.fromBase64(shopsConfig(env).WEBHOOK_SECRET_KEY));

  const merchant: TestSystem['merchant'] = async ({ emailConfirmed = true } = {}) => {
    const email = `m-${randomBytes(6).toString('hex')}@example.com`;
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const created = await accounts.createMerchant({ email, password, emailConfirmed });
    return {
      id: created.merchant.id,
      email,
      password,
      apiKey: created.apiKey,
      apiSecret: created.apiSecret,
      keys: { 'X-API-Key': created.apiKey, 'X-API-Secret': created.apiSecret },
    };
  };
  const shop: TestSystem['shop'] = async (merchantId, o = {}) => {
    const created = await shops.createShop({
      merchant_id: merchantId,
      name: 'Test shop',
      status: o.status ?? 'approved',
      fee_payer: o.feePayer ?? 'merchant',
      crypto_bps: o.cryptoBps ?? 100,
      sbp_bps: o.sbpBps ?? 100,
      webhook_url: null,
      webhook_secret: null,
    });
    return { id: created.shop.id, cashierKey: created.cashierKey };
  };

  return {
    http,
    baseUrl,
    namespace,
    database,
    faults,
    merchant,
    shop,
    async merchantWithShop(o = {}) {
      const m = await merchant(o.emailConfirmed === undefined ? {} : { emailConfirmed: o.emailConfirmed });
      return { merchant: m, shop: await shop(m.id, o) };
    },
    async login(m) {
      const res = await http.post('/api/v1/auth/login', { email: m.email, password: m.password });
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
      return res.body.session_token as string;
    },
    async stop() {
      for (const s of services.reverse()) await s.stop();
      await accountsDb.close();
      await shopsDb.close();
      if (faults) await Promise.all(Object.values(faults).map((f) => f.close()));
      await database.drop();
    },
  };
}
