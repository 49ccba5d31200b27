import { randomBytes, randomUUID } from 'node:crypto';
import { BusServer, connectNats, IdentityTokens, type HandlerContext } from '@pl/bus';
import { DEV_IDENTITY_SECRET } from '@pl/config';
import type { z } from 'zod';
import { CREDENTIAL_PREFIXES, subjects, type Identity, type Mode, type PaymentLink, type ShopView, type SubjectContract } from '@pl/contracts';
import { Db } from '@pl/db';
import { notFound } from '@pl/errors';
import { createLogger } from '@pl/telemetry';
import { createTestDatabase, uniqueNamespace, type TestDatabase } from '@pl/testing';
import { httpClient, type ApiResponse } from '../../../tests/support/http';
import { startGateway } from '../src/app';
import { loadConfig } from '../src/config';
import { AccountRepository } from '../src/data/account.repository';
import { LEGACY_SCRYPT, PasswordHasher } from '../src/domain/password-hash';
import { FaultProxy } from '@pl/testing';
import { migrateGateway } from '../src/data/migrate';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

interface Call {
  subject: string;
  payload: unknown;
  identity: Identity;
  requestId: string;
}

/** A response as the tests read it. */
export type Reply = ApiResponse;

export const sampleLink = (over: Partial<PaymentLink> = {}): PaymentLink => {
  const id = over.id ?? randomUUID();
  const url = `http://localhost:8080/p/${id}`;
  return {
    id,
    shop_id: 1,
    order_id: null,
    description: null,
    return_url: null,
    currency: 'RUB',
    amount: '10.00',
    amount_refunded: '0.00',
    fee_bps: 100,
    fee_percent_bp: 100,
    fee_payer: 'merchant',
    payer_amount: '10.00',
    merchant_credit: '9.90',
    platform_revenue: '0.10',
    status: 'pending',
    failure_reason: null,
    gateway_provider: null,
    gateway_payment_id: null,
    to_currency: null,
    network: null,
    deposit_address: null,
    payer_currency: null,
    payer_crypto_amount: null,
    qr: null,
    checkout_url: url,
    pay_url: url,
    paymentUrl: url,
    expires_at: '2026-11-23T12:00:00+03:00',
    paid_at: null,
    created_at: '2026-11-22T12:00:00+03:00',
    updated_at: '2026-11-22T12:00:00+03:00',
    livemode: true,
    ...over,
  };
};

type Behaviour = (payload: unknown, ctx: HandlerContext) => Promise<unknown>;

/**
 * The real gateway (real Postgres, Redis, NATS) in front of scripted links and shops responders on
 * a NATS namespace of its own: the gateway's HTTP behaviour is tested without the other services.
 */
export async function startHarness(options: { faults?: boolean; env?: Record<string, string> } = {}) {
  const log = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const database: TestDatabase = await createTestDatabase('gw');
  await migrateGateway(database.url, log);
  const namespace = uniqueNamespace('gw');
  const redisProxy = options.faults ? await startProxy(REDIS_URL) : undefined;

  const calls: Call[] = [];
  const shopsByKey = new Map<string, ShopView>();
  const behaviours = new Map<string, Behaviour>();
  const record =
    (subject: string): Behaviour =>
    async (payload, ctx) => {
      calls.push({ subject, payload, identity: ctx.identity, requestId: ctx.requestId });
      const custom = behaviours.get(subject);
      if (custom) return custom(payload, ctx);
      if (subject === subjects.shopsByCashierKey.name) {
        const shop = shopsByKey.get((payload as { cashier_key: string }).cashier_key);
        if (!shop) throw notFound('Shop not found');
        return shop;
      }
      if (subject === subjects.linksList.name) return { has_more: false, next_cursor: null, payment_links: [] };
      const p = payload as { id?: string; shop_id?: number };
      const link = sampleLink({ ...(p.id ? { id: p.id } : {}), ...(p.shop_id ? { shop_id: p.shop_id } : {}) });
      if (subject === subjects.linksCreateOnce.name || subject === subjects.linksCancelOnce.name) return { link, replayed: false };
      return link;
    };

  const nc = await connectNats(NATS_URL, 'fake-services', log);
  const server = new BusServer(nc, namespace, new IdentityTokens(DEV_IDENTITY_SECRET), 'fake', log);
  for (const s of Object.values(subjects) as SubjectContract<z.ZodType, z.ZodType>[]) server.handle(s, record(s.name));
  await nc.flush();

  const gateway = await startGateway(
    loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DATABASE_URL: database.url,
      REDIS_URL: redisProxy ? redisProxy.rewrite(REDIS_URL) : REDIS_URL,
      NATS_URL,
      BUS_NAMESPACE: namespace,
      REDIS_KEY_PREFIX: `${namespace}:`,
      GATEWAY_PORT: '0',
      OPS_PORT: '0',
      NATS_REQUEST_TIMEOUT_MS: '1000',
      // The suite's cheaper password hash (tests/support/system.ts, TEST_PASSWORD_SCRYPT).
      PASSWORD_SCRYPT: 'N=16384,r=8,p=1',
      ...options.env,
    }),
    log,
  );
  const accountsDb = new Db({ url: database.url, schema: 'gateway', log });
  const accounts = new AccountRepository(accountsDb, new PasswordHasher(LEGACY_SCRYPT));
  const baseUrl = `http://127.0.0.1:${gateway.port}`;

  const http = httpClient(baseUrl);
  const request = (method: string, path: string, init: { headers?: Record<string, string>; body?: string | object } = {}): Promise<Reply> =>
    http.call(method, path, init);

  return {
    baseUrl,
    opsPort: gateway.opsPort,
    calls,
    redisProxy,
    request,
    /** Replaces the scripted answer of one subject. */
    on(subject: string, behaviour: Behaviour): void {
      behaviours.set(subject, behaviour);
    },
    /** Takes the scripted links and shops off the bus, as if those services were down. */
    async stopResponders(): Promise<void> {
      await server.drain();
    },
    reset(): void {
      behaviours.clear();
      calls.length = 0;
    },
    async merchant(emailConfirmed = true) {
      const email = `m-${randomBytes(6).toString('hex')}@example.com`;
      const password = `pw-${randomBytes(8).toString('hex')}`;
      const created = await accounts.createMerchant({ email, password, emailConfirmed });
      return {
        id: created.merchant.id,
        email,
        password,
        keys: { 'X-API-Key': created.apiKey, 'X-API-Secret': created.apiSecret },
        testKeys: { 'X-API-Key': created.testApiKey, 'X-API-Secret': created.testApiSecret },
      };
    },
    /** Registers a cashier key (of `mode`, live by default) with the scripted shops service. */
    cashierKey(merchantId: string, shopId: number, mode: Mode = 'live'): string {
      const key = `${CREDENTIAL_PREFIXES.cashierKey[mode]}${randomBytes(18).toString('base64url')}`;
      shopsByKey.set(key, {
        id: shopId,
        merchant_id: merchantId,
        name: 'Shop',
        status: 'approved',
        fee_payer: 'merchant',
        crypto_bps: 100,
        sbp_bps: 100,
        webhook_url: null,
        webhook_events: ['payment.succeeded'],
        payment_methods: { sbp: true, crypto_networks: ['USDT-TRC20', 'USDT-ERC20', 'USDT-TON', 'BTC-BTC', 'ETH-ETH', 'TON-TON'] },
      });
      return key;
    },
    async stop(): Promise<void> {
      await gateway.stop();
      await server.drain();
      await nc.drain();
      await accountsDb.close();
      await redisProxy?.close();
      await database.drop();
    },
  };
}

async function startProxy(url: string): Promise<FaultProxy> {
  const u = new URL(url);
  return new FaultProxy(u.hostname, Number(u.port)).start();
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;
