import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { Db } from '@pl/db';
import { MailCatcher } from '@pl/mail-catcher';
import { createLogger, type Logger } from '@pl/telemetry';
import { createTestDatabase, FaultProxy, freePort, fromMigratedTemplate, uniqueNamespace, type TestDatabase } from '@pl/testing';
import { AccountRepository, loadConfig as gatewayConfig, migrateGateway, PasswordHasher, startGateway } from '@pl/gateway/testing';
import { ProviderRegistry, providersFrom, type PaymentProvider, type ProviderConfig, type ProvidersSource } from '@pl/providers';
import { loadConfig as linksConfig, migrateLinks, startLinks } from '@pl/links/testing';
import { loadConfig as notifierConfig, migrateNotifier, startNotifier } from '@pl/notifier/testing';
import { loadConfig as shopsConfig, migrateShops, SecretBox, ShopRepository, startShops } from '@pl/shops/testing';
import { httpClient, type ApiResponse, type HttpClient } from './http';
import { steppedUpSession } from './second-factor';
import { startLocalProviderFakes, type LocalProviderFakes } from '@pl/provider-fakes';

const PG_URL = process.env.TEST_DATABASE_HOST_URL ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
/**
 * scripts/test.sh exports it (a Kafka-protocol mock); `eval "$(bash scripts/local-deps.sh)"` does for a shell.
 * Read when a system starts, not at import: bench:webhooks sets it after its imports, once it has a mock.
 */
const kafkaBrokers = (): string => process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
/** The sandbox provider's callback secret in every test system. */
/**
 * The time-outs every test system runs with (beside the services' defaults); tests/support/recovery-bounds.ts
 * derives how long a recovery may take from them.
 */
export const SYSTEM_TIMEOUT_ENV = { NATS_REQUEST_TIMEOUT_MS: '2000', KAFKA_SESSION_TIMEOUT_MS: '6000' } as const;

export const TEST_PROVIDER_SECRET = 'test-sandbox-provider-secret-0123456789abcdef';

export interface TestMerchant {
  id: string;
  /** The account's owner, the user made with it (gateway.users.id). */
  userId: string;
  email: string;
  password: string;
  apiKey: string;
  apiSecret: string;
  /** Headers of the account API key pair (live mode). */
  keys: Record<string, string>;
  /** The test-mode pair (`pk_test_` / `sk_test_`) the account is created with, as the admin CLI prints it. */
  testApiKey: string;
  testApiSecret: string;
  /** Headers of the test-mode pair. */
  testKeys: Record<string, string>;
}

export interface TestShop {
  id: number;
  cashierKey: string;
  /** The shop's test-mode cashier key (`svc_test_`). */
  testCashierKey: string;
}

interface ShopOptions {
  status?: 'approved' | 'pending' | 'rejected' | 'blocked';
  feePayer?: 'merchant' | 'client' | 'split';
  cryptoBps?: number;
  sbpBps?: number;
  webhookUrl?: string | null;
  webhookSecret?: string | null;
}

/**
 * The password hash of test systems: the parameters stored hashes had before OWASP's minimum became the default
 * (N=2^14, r=8, p=1), a fifth of its work. The suite hashes a password for every merchant it makes and every sign-in
 * (docs/adr/0039-password-hash-parameters.md counts them); the default's cost on each would add minutes to the suite on
 * the 2-core machine. `tests/integration/password-hashing.test.ts` runs the default end to end.
 */
const TEST_PASSWORD_SCRYPT = 'N=16384,r=8,p=1';

export interface SystemOptions {
  /** Put Postgres, Redis and NATS behind fault proxies that the test can cut. */
  faults?: boolean;
  /** Extra environment for every service. */
  env?: Record<string, string>;
  /**
   * Hash passwords with the gateway's production default (OWASP's minimum) instead of {@link TEST_PASSWORD_SCRYPT}:
   * for the test that runs the default end to end.
   */
  productionPasswordHash?: boolean;
  /** Leave the links service out, for a test that runs its own instances (as processes, say). */
  withoutLinks?: boolean;
  /** Leave the notifier out, for a test that runs its own instances (as processes, say). */
  withoutNotifier?: boolean;
  /** Postgres server (URL without a database) for the system's database; default the machine's (a test's private one, say). */
  postgresHostUrl?: string;
  /** Redis for the gateway; default the machine's. */
  redisUrl?: string;
  /** NATS for every service; default the machine's. */
  natsUrl?: string;
  /**
   * A provider that takes both live methods in links and the gateway (a test's stand-in for Raiffeisen or Heleket,
   * say), wired as the configuration wires a real one; test links still go to the sandbox.
   */
  liveProvider?: PaymentProvider;
  /**
   * Live links paid through the real adapters (Raiffeisen SBP and Heleket) against their local fakes, started for this
   * system (`sys.fakes`); the gateway then listens on a fixed free port, its PUBLIC_BASE_URL being where the fakes call back.
   */
  providerFakes?: boolean;
}

export interface TestSystem {
  http: HttpClient;
  baseUrl: string;
  namespace: string;
  database: TestDatabase;
  faults: { postgres: FaultProxy; redis: FaultProxy; nats: FaultProxy } | undefined;
  /** The gateway's ops port (/healthz, /readyz, /metrics). */
  gatewayOpsPort: number;
  /** The notifier's ops port (/healthz, /readyz, /metrics); throws when started `withoutNotifier`. */
  notifierOpsPort: number;
  /** The links service's ops port (/healthz, /readyz, /metrics); throws when started `withoutLinks`. */
  linksOpsPort: number;
  merchant(options?: { emailConfirmed?: boolean }): Promise<TestMerchant>;
  shop(merchantId: string, options?: ShopOptions): Promise<TestShop>;
  /** A merchant with an approved shop, the usual starting point. */
  merchantWithShop(options?: ShopOptions & { emailConfirmed?: boolean }): Promise<{ merchant: TestMerchant; shop: TestShop }>;
  /**
   * A session of the merchant's user that may also do what needs step-up (the user gets TOTP on their first sign-in
   * here). `passwordOnly`: the plain sign-in of a user without a second factor, spending none of the session's budget.
   */
  login(merchant: TestMerchant, options?: { passwordOnly?: boolean }): Promise<string>;
  /**
   * Posts a sandbox provider callback to the gateway, signed with the system's provider secret
   * (or `signWith`), exactly as the provider would send it.
   */
  providerCallback(
    gatewayPaymentId: string,
    status: 'paid' | 'failed',
    options?: { signWith?: string; signature?: string | null },
  ): Promise<ApiResponse>;
  /** Runs SQL on the system's database (schema-qualified names), for facts no API exposes. */
  sql<T extends Record<string, unknown> = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** The environment every service of this system was started with (for the admin CLI, say). */
  env: Record<string, string>;
  /** The providers' fakes, when started with `providerFakes`; throws otherwise. */
  fakes: LocalProviderFakes;
  /** The SMTP catcher the gateway sends this system's mail to (SMTP_URL): await a mail with `mail.waitForMailTo(address)`. */
  mail: MailCatcher;
  stop(): Promise<void>;
}

/** The sandbox provider's payment id for a link. */
export const sandboxPaymentId = (linkId: string): string => `sbx_${linkId}`;

export const signProviderBody = (body: string, secret = TEST_PROVIDER_SECRET): string => createHmac('sha256', secret).update(body).digest('hex');

const proxyFor = async (url: string): Promise<FaultProxy> => {
  const u = new URL(url);
  return new FaultProxy(u.hostname, Number(u.port)).start();
};

/**
 * Starts the whole platform in this process — gateway, links, shops and notifier — on port 0, against
 * a fresh database, a NATS subject namespace, a Redis key prefix, a Kafka topic and consumer group of
 * its own, so test files run in parallel. Webhook retries are shrunk to tens of milliseconds.
 */
export async function startSystem(options: SystemOptions = {}): Promise<TestSystem> {
  const log: Logger = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const pgHostUrl = options.postgresHostUrl ?? PG_URL;
  const redisUrl = options.redisUrl ?? REDIS_URL;
  const natsUrl = options.natsUrl ?? NATS_URL;
  // A copy of the run's migrated template (tests/support/template-database.ts) on the machine's server; the migrations
  // below then find nothing to apply, and apply everything to a database a private server starts empty.
  const database = await createTestDatabase(
    'it',
    options.postgresHostUrl === undefined ? fromMigratedTemplate() : { hostUrl: options.postgresHostUrl },
  );
  await migrateGateway(database.url, log);
  await migrateShops(database.url, log);
  await migrateLinks(database.url, log);
  await migrateNotifier(database.url, log);

  const faults = options.faults ? { postgres: await proxyFor(pgHostUrl), redis: await proxyFor(redisUrl), nats: await proxyFor(natsUrl) } : undefined;
  const namespace = uniqueNamespace('it');
  const fakesPort = options.providerFakes ? await freePort() : null;
  const fakes = fakesPort === null ? undefined : await startLocalProviderFakes(`http://127.0.0.1:${fakesPort}`);
  const mail = await MailCatcher.start();
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: faults ? faults.postgres.rewrite(database.url) : database.url,
    REDIS_URL: faults ? faults.redis.rewrite(redisUrl) : redisUrl,
    NATS_URL: faults ? faults.nats.rewrite(natsUrl) : natsUrl,
    BUS_NAMESPACE: namespace,
    REDIS_KEY_PREFIX: `${namespace}:`,
    GATEWAY_PORT: '0',
    OPS_PORT: '0',
    ...SYSTEM_TIMEOUT_ENV,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    KAFKA_BROKERS: kafkaBrokers(),
    PAYMENT_EVENTS_TOPIC: `${namespace}.payment-events`,
    KAFKA_GROUP_ID: `${namespace}-notifier`,
    WEBHOOK_RETRY_DELAYS_MS: '50,50,50,50,50,50,50',
    WEBHOOK_MIN_DELAY_AFTER_THROTTLE_MS: '100',
    PROVIDER_SANDBOX_SECRET: TEST_PROVIDER_SECRET,
    EXPIRY_SWEEP_INTERVAL_MS: '200',
    ...(fakes ? { ...fakes.env, GATEWAY_PORT: String(fakesPort), PUBLIC_BASE_URL: `http://127.0.0.1:${fakesPort}` } : {}),
    SMTP_URL: mail.smtpUrl,
    MAIL_POLL_INTERVAL_MS: '100',
    ...(options.productionPasswordHash ? {} : { PASSWORD_SCRYPT: TEST_PASSWORD_SCRYPT }),
    // Credits available at once, as every money test before payouts assumed (docs/payouts.md): the payouts tests that
    // are about the hold set it themselves.
    PAYOUT_HOLD_HOURS: '0',
    ...options.env,
  };
  const services = [await startShops(shopsConfig(env), log)];
  const live = options.liveProvider;
  // A factory: the service hands it its observer, so the live providers' calls and circuits reach its metrics.
  const providersOf =
    (config: ProviderConfig): ProvidersSource =>
    (observer) => {
      const registry = providersFrom(config, { publicBaseUrl: env.PUBLIC_BASE_URL, observer });
      return live ? new ProviderRegistry(registry.sandbox, { sbp: live, crypto: live }) : registry;
    };
  const links = options.withoutLinks ? undefined : await startLinks(linksConfig(env), log, providersOf(linksConfig(env)));
  if (links) services.push(links);
  const notifier = options.withoutNotifier ? undefined : await startNotifier(notifierConfig(env), log);
  if (notifier) services.push(notifier);
  const gateway = await startGateway(gatewayConfig(env), log, providersOf(gatewayConfig(env)));
  services.push(gateway);
  const baseUrl = `http://127.0.0.1:${gateway.port}`;
  const http = httpClient(baseUrl);

  // Test fixtures go straight to the owning repositories (as the admin CLI does), not through the proxies.
  const accountsDb = new Db({ url: database.url, schema: 'gateway', log });
  const shopsDb = new Db({ url: database.url, schema: 'shops', log });
  const accounts = new AccountRepository(accountsDb, new PasswordHasher(gatewayConfig(env).PASSWORD_SCRYPT));
  const shops = new ShopRepository(shopsDb, SecretBox.fromBase64(shopsConfig(env).WEBHOOK_SECRET_KEY));

  const merchant: TestSystem['merchant'] = async ({ emailConfirmed = true } = {}) => {
    const email = `m-${randomBytes(6).toString('hex')}@example.com`;
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const created = await accounts.createMerchant({ email, password, emailConfirmed });
    const { testApiKey, testApiSecret } = created;
    return {
      id: created.merchant.id,
      userId: created.userId,
      email,
      password,
      apiKey: created.apiKey,
      apiSecret: created.apiSecret,
      keys: { 'X-API-Key': created.apiKey, 'X-API-Secret': created.apiSecret },
      testApiKey,
      testApiSecret,
      testKeys: { 'X-API-Key': testApiKey, 'X-API-Secret': testApiSecret },
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
      webhook_url: o.webhookUrl ?? null,
      webhook_secret: o.webhookSecret ?? null,
    });
    return { id: created.shop.id, cashierKey: created.cashierKey, testCashierKey: created.testCashierKey };
  };

  const providerCallback: TestSystem['providerCallback'] = (gatewayPaymentId, status, o = {}) => {
    const body = JSON.stringify({ gateway_payment_id: gatewayPaymentId, status });
    const signature = o.signature === undefined ? signProviderBody(body, o.signWith) : o.signature;
    return http.post('/callbacks/v1/sandbox', body, signature === null ? {} : { headers: { 'X-Provider-Signature': signature } });
  };

  const sql: TestSystem['sql'] = async <T extends Record<string, unknown>>(text: string, params: unknown[] = []) => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query<T>(text, params)).rows;
    } finally {
      await client.end();
    }
  };

  return {
    http,
    env,
    mail,
    sql,
    providerCallback,
    baseUrl,
    namespace,
    database,
    faults,
    gatewayOpsPort: gateway.opsPort,
    get linksOpsPort() {
      if (!links) throw new Error('this system runs no links service (withoutLinks)');
      return links.opsPort;
    },
    get notifierOpsPort() {
      if (!notifier) throw new Error('this system runs no notifier (withoutNotifier)');
      return notifier.opsPort;
    },
    get fakes() {
      if (!fakes) throw new Error('this system runs no provider fakes (providerFakes)');
      return fakes;
    },
    merchant,
    shop,
    async merchantWithShop(o = {}) {
      const m = await merchant(o.emailConfirmed === undefined ? {} : { emailConfirmed: o.emailConfirmed });
      return { merchant: m, shop: await shop(m.id, o) };
    },
    async login(m, { passwordOnly = false } = {}) {
      if (!passwordOnly) return steppedUpSession(http.call, m);
      const res = await http.post('/api/v1/auth/login', { email: m.email, password: m.password });
      if (res.status !== 200 || typeof res.body.session_token !== 'string') throw new Error(`login failed: ${res.status} ${res.text}`);
      return res.body.session_token as string;
    },
    async stop() {
      for (const s of services.reverse()) await s.stop();
      await accountsDb.close();
      await shopsDb.close();
      if (faults) await Promise.all(Object.values(faults).map((f) => f.close()));
      await fakes?.stop();
      await mail.close();
      await database.drop();
    },
  };
}

/** One request a {@link WebhookReceiver} got. */
export interface ReceivedWebhook {
  /** `performance.now()` when the body had fully arrived. */
  at: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary JSON
  json: any;
}

export interface ReceiverOptions {
  /** Status for the n-th request (1-based); 200 by default. */
  status?: (n: number, hit: ReceivedWebhook) => number;
  /** Hold every request this long before answering (a slow merchant). */
  delayMs?: number;
  /** Called for every request as it arrives. */
  onHit?: (hit: ReceivedWebhook) => void;
}

/** A merchant's webhook endpoint on 127.0.0.1 whose requests tests await as promises, never with sleeps. */
export class WebhookReceiver {
  readonly hits: ReceivedWebhook[] = [];
  private waiters: { match: (h: ReceivedWebhook) => boolean; resolve: (h: ReceivedWebhook) => void }[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(options: ReceiverOptions = {}): Promise<WebhookReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        let json: unknown;
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch {
          json = undefined;
        }
        const hit: ReceivedWebhook = { at: performance.now(), headers: req.headers, body, json };
        receiver.hits.push(hit);
        options.onHit?.(hit);
        const status = options.status?.(receiver.hits.length, hit) ?? 200;
        const answer = (): void => {
          if (!res.writableEnded) res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
        };
        if (options.delayMs) {
          const t = setTimeout(() => {
            receiver.timers.delete(t);
            answer();
          }, options.delayMs);
          receiver.timers.add(t);
        } else answer();
        receiver.waiters = receiver.waiters.filter((w) => {
          if (!w.match(hit)) return true;
          w.resolve(hit);
          return false;
        });
      });
    });
    return receiver;
  }

  /** Resolves with the first request (already received or still to come) that matches. */
  waitFor(match: (hit: ReceivedWebhook) => boolean): Promise<ReceivedWebhook> {
    const seen = this.hits.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** Resolves with the n-th request of the given payment link (1-based). */
  nthFor(linkId: string, n: number): Promise<ReceivedWebhook> {
    return this.waitFor((h) => h.json?.data?.payment_link_id === linkId && this.hitsFor(linkId).indexOf(h) === n - 1);
  }

  hitsFor(linkId: string): ReceivedWebhook[] {
    return this.hits.filter((h) => h.json?.data?.payment_link_id === linkId);
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
