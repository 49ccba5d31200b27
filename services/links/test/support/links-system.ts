import { randomUUID } from 'node:crypto';
import type { NatsConnection } from 'nats';
import pino from 'pino';
import { BusClient, IdentityTokens, connectNats } from '@pl/bus';
import type { RunningService } from '@pl/config';
import { subjects, type CreateLinkCommand, type Identity, type Mode, type PaymentLink, type ShopStatus } from '@pl/contracts';
import { Db } from '@pl/db';
import type { FeePayer } from '@pl/money';
import { createTestDatabase, uniqueNamespace, type TestDatabase } from '@pl/testing';
import { loadConfig as loadShopsConfig, migrateShops, SecretBox, ShopRepository, SHOPS_SCHEMA, startShops } from '@pl/shops/testing';
import { startLinks } from '../../src/app';
import { loadConfig } from '../../src/config';
import { LINKS_SCHEMA, migrateLinks } from '../../src/data/migrate';

export const PUBLIC_BASE_URL = 'https://pay.example.test';
const SECRET = 'links-component-test-identity-secret-0123456789';
const log = pino({ level: 'silent' });

export const apiKey = (merchantId: string, emailConfirmed = true, mode: Mode = 'live'): Identity => ({
  kind: 'merchant',
  merchant_id: merchantId,
  auth: 'api_key',
  email_confirmed: emailConfirmed,
  mode,
});
export const session = (merchantId: string, emailConfirmed: boolean, mode: Mode = 'live'): Identity => ({
  kind: 'merchant',
  merchant_id: merchantId,
  auth: 'session',
  email_confirmed: emailConfirmed,
  mode,
});
export const cashier = (merchantId: string, shopId: number, mode: Mode = 'live'): Identity => ({
  kind: 'merchant',
  merchant_id: merchantId,
  auth: 'cashier',
  shop_id: shopId,
  email_confirmed: false,
  mode,
});
/** A test-mode API key pair of the merchant. */
export const testKey = (merchantId: string): Identity => apiKey(merchantId, true, 'test');
export const platform: Identity = { kind: 'service', service: 'gateway' };

/** KAFKA_BROKERS as `eval "$(bash scripts/local-deps.sh)"` exported it (librdkafka's mock cluster). */
export const kafkaBrokersFromEnv = (): string => {
  const brokers = process.env.KAFKA_BROKERS;
  if (!brokers) throw new Error('KAFKA_BROKERS is not set: run eval "$(bash scripts/local-deps.sh)" first');
  return brokers;
};

interface ShopSettings {
  status?: ShopStatus;
  fee_payer?: FeePayer;
  crypto_bps?: number;
  sbp_bps?: number;
}

/** The real shops and links services in-process on a fresh database and a NATS namespace of their own. */
export interface LinksSystem {
  bus: BusClient;
  /** The NATS subject prefix of this system. */
  namespace: string;
  databaseUrl: string;
  /** This system's own Kafka topic of payment events. */
  topic: string;
  /** Direct access to the links schema, for arranging states the API cannot reach quickly (expiry). */
  linksDb: Db;
  /** The links service's ops port (/metrics). */
  linksOpsPort: number;
  createShop(merchantId: string, settings?: ShopSettings): Promise<number>;
  createLink(identity: Identity, command: Partial<CreateLinkCommand>): Promise<PaymentLink>;
  stop(): Promise<void>;
}

export async function startLinksSystem(label: string, linksEnv: NodeJS.ProcessEnv = {}, linksLog: pino.Logger = log): Promise<LinksSystem> {
  const database: TestDatabase = await createTestDatabase(label);
  await migrateShops(database.url, log);
  await migrateLinks(database.url, log);
  const namespace = uniqueNamespace(label);
  const env = { NODE_ENV: 'test', DATABASE_URL: database.url, BUS_NAMESPACE: namespace, IDENTITY_TOKEN_SECRET: SECRET, OPS_PORT: '0' };
  const shopsConfig = loadShopsConfig(env);
  const shops: RunningService = await startShops(shopsConfig, log);
  const topic = `payment-events-${namespace}`;
  const links: RunningService = await startLinks(
    loadConfig({
      ...env,
      PUBLIC_BASE_URL: `${PUBLIC_BASE_URL}/`,
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
      PAYMENT_EVENTS_TOPIC: topic,
      OUTBOX_POLL_INTERVAL_MS: '200',
      // Credits available at once, as the money tests before payouts assumed (docs/payouts.md).
      PAYOUT_HOLD_HOURS: '0',
      ...linksEnv,
    }),
    linksLog,
  );
  const shopsDb = new Db({ url: database.url, schema: SHOPS_SCHEMA, log });
  const linksDb = new Db({ url: database.url, schema: LINKS_SCHEMA, log });
  const shopRepo = new ShopRepository(shopsDb, SecretBox.fromBase64(shopsConfig.WEBHOOK_SECRET_KEY));
  const nc: NatsConnection = await connectNats('nats://127.0.0.1:4222', `${label}-test`, log);
  const bus = new BusClient(nc, namespace, new IdentityTokens(SECRET));

  return {
    bus,
    namespace,
    databaseUrl: database.url,
    topic,
    linksDb,
    linksOpsPort: links.opsPort,
    async createShop(merchantId, settings = {}) {
      const { shop } = await shopRepo.createShop({
        merchant_id: merchantId,
        name: `Shop ${randomUUID().slice(0, 8)}`,
        status: settings.status ?? 'approved',
        fee_payer: settings.fee_payer ?? 'merchant',
        crypto_bps: settings.crypto_bps ?? 100,
        sbp_bps: settings.sbp_bps ?? 100,
        webhook_url: null,
        webhook_secret: null,
      });
      return shop.id;
    },
    createLink(identity, command) {
      return bus.request(
        subjects.linksCreate,
        { amount_kopecks: 10000, order_id: null, description: null, expires_in_minutes: 1440, return_url: null, ...command },
        identity,
      );
    },
    async stop() {
      await nc.close();
      await links.stop();
      await shops.stop();
      await Promise.all([shopsDb.close(), linksDb.close()]);
      await database.drop();
    },
  };
}

/** Milliseconds since the epoch of a `+03:00` date from the wire. */
export const instantOf = (moscowDate: string): number => Date.parse(moscowDate);
