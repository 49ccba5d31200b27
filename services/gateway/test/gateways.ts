import { randomBytes } from 'node:crypto';
import { BusServer, connectNats, IdentityTokens } from '@pl/bus';
import { DEV_IDENTITY_SECRET } from '@pl/config';
import { subjects } from '@pl/contracts';
import { Db } from '@pl/db';
import { createLogger } from '@pl/telemetry';
import { createTestDatabase, uniqueNamespace } from '@pl/testing';
import { httpClient, type ApiResponse } from '../../../tests/support/http';
import { steppedUpSession } from '../../../tests/support/second-factor';
import { startGateway } from '../src/app';
import { loadConfig } from '../src/config';
import { AccountRepository } from '../src/data/account.repository';
import { PasswordHasher } from '../src/domain/password-hash';
import { migrateGateway } from '../src/data/migrate';
import { createRedis } from '../src/data/redis';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** The dashboard's origin in these gateways (PUBLIC_BASE_URL's default). */
export const PUBLIC_ORIGIN = 'http://localhost:8080';

type Call = (method: string, path: string, init?: { headers?: Record<string, string>; body?: unknown }) => Promise<ApiResponse>;

/**
 * `count` real gateways sharing one database, Redis prefix and NATS namespace, as replicas behind one load
 * balancer, with a scripted links service that answers `links.list` (so an API key can be tried on a real
 * route). Sign-in limits are raised so a test file can open many sessions from 127.0.0.1, and one proxy
 * hop is trusted so a test can pick the client address with `X-Forwarded-For`.
 */
export async function startGateways(count: number, env: Record<string, string> = {}) {
  const log = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const database = await createTestDatabase('gwacct');
  await migrateGateway(database.url, log);
  const namespace = uniqueNamespace('gwacct');
  const nc = await connectNats(NATS_URL, 'fake-links', log);
  const server = new BusServer(nc, namespace, new IdentityTokens(DEV_IDENTITY_SECRET), 'fake', log);
  server.handle(subjects.linksList, async () => ({ has_more: false, next_cursor: null, payment_links: [] }));
  await nc.flush();
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: database.url,
    REDIS_URL,
    NATS_URL,
    BUS_NAMESPACE: namespace,
    REDIS_KEY_PREFIX: `${namespace}:`,
    GATEWAY_PORT: '0',
    OPS_PORT: '0',
    NATS_REQUEST_TIMEOUT_MS: '1000',
    TRUST_PROXY_HOPS: '1',
    RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '1000',
    RATE_LIMIT_AUTH_FAILURES_PER_IP_PER_MINUTE: '1000',
    // The suite's cheaper password hash (tests/support/system.ts, TEST_PASSWORD_SCRYPT).
    PASSWORD_SCRYPT: 'N=16384,r=8,p=1',
    ...env,
  });
  const gateways: Awaited<ReturnType<typeof startGateway>>[] = [];
  for (let i = 0; i < count; i++) gateways.push(await startGateway(config, log));
  const db = new Db({ url: database.url, schema: 'gateway', log });
  const redis = createRedis(REDIS_URL, log);
  await redis.connect();
  const accounts = new AccountRepository(db, new PasswordHasher(config.PASSWORD_SCRYPT));
  const clients: Call[] = gateways.map((g) => {
    const http = httpClient(`http://127.0.0.1:${g.port}`);
    return (method, path, init = {}) => http.call(method, path, init);
  });

  return {
    /** One call function per gateway. */
    clients,
    db,
    /** The Redis these gateways share, and the prefix of their keys (to read or age a stored record). */
    redis,
    keyPrefix: `${namespace}:`,
    /** Every Idempotency-Key record these gateways keep in Redis, as stored. */
    async idempotencyRecords(): Promise<string[]> {
      const keys = await redis.keys(`${namespace}:idem:*`);
      return Promise.all(keys.map(async (k) => (await redis.get(k)) ?? ''));
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
    /**
     * Signs in on gateway `on` (from `ip`, through the trusted proxy hop) and answers the session token, stepped up
     * (tests/support/second-factor.ts): the user gets TOTP on their first sign-in.
     */
    async signIn(m: { email: string; password: string }, on = 0, ip = '198.51.100.10'): Promise<string> {
      return steppedUpSession(clients[on] as Call, m, { 'X-Forwarded-For': ip });
    },
    async stop(): Promise<void> {
      for (const g of gateways) await g.stop();
      await server.drain();
      await nc.drain();
      await db.close();
      await redis.close();
      await database.drop();
    },
  };
}

export type Gateways = Awaited<ReturnType<typeof startGateways>>;

/** `Authorization: Bearer` for a session token. */
export const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
