import { createLogger } from '@pl/telemetry';
import { eventually } from '@pl/testing';
import { loadConfig as gatewayConfig, startGateway } from '@pl/gateway/testing';
import { expectError, httpClient, type HttpClient } from '../support/http';
import { PrivateRedis } from '../support/private-servers';
import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * The gateway is ready exactly when it can serve its core work (API-key and cashier routes, the checkout),
 * which needs no Redis: with a private redis-server stopped it stays ready, serves those routes with rate
 * limits counted per process, answers 503 to what needs Redis, and recovers by itself once Redis is back.
 * (tests/faults/redis-restart.test.ts covers what survives a restart.)
 */

jest.setTimeout(60_000);

let redis: PrivateRedis;
let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
beforeAll(async () => {
  redis = await PrivateRedis.start();
  sys = await startSystem({ redisUrl: redis.url, env: { RATE_LIMIT_CASHIER_PER_MINUTE: '3' } });
  ({ merchant, shop } = await sys.merchantWithShop());
}, 60_000);
afterAll(async () => {
  await sys?.stop();
  await redis?.close();
}, 60_000);

const readyz = async (opsPort: number): Promise<number> => (await fetch(`http://127.0.0.1:${opsPort}/readyz`)).status;
const login = (http: HttpClient) => http.post('/api/v1/auth/login', { email: merchant.email, password: merchant.password });
const create = (http: HttpClient, headers: Record<string, string> = {}) =>
  http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '5.00' }, { headers: { ...merchant.keys, ...headers } });

it('stays ready with Redis stopped: API-key creates without a key serve, a key and sign-in get 503, and all recovers by itself', async () => {
  expect((await login(sys.http)).status).toBe(200);
  await redis.kill();
  try {
    expect(await readyz(sys.gatewayOpsPort)).toBe(200);
    expect((await create(sys.http)).status).toBe(201);
    for (const res of [await create(sys.http, { 'Idempotency-Key': 'while-redis-is-down' }), await login(sys.http)]) {
      expectError(res, 503, 'common.err.unavailable');
      expect(res.headers.get('retry-after')).toBe('1');
    }
    expect(await readyz(sys.gatewayOpsPort)).toBe(200);
  } finally {
    await redis.startServer();
  }
  await eventually(async () => (await login(sys.http)).status === 200, 'sign-in answering again', 15_000);
  expect((await create(sys.http, { 'Idempotency-Key': 'while-redis-is-down' })).status).toBe(201);
  expect(await readyz(sys.gatewayOpsPort)).toBe(200);
});

it('still limits while Redis is down: each process counts the budget itself (429 with Retry-After beyond it)', async () => {
  const { shop: s } = await sys.merchantWithShop();
  const cashierCreate = () =>
    sys.http.post('/api/v1/merchant/payments', { amount: '1.00' }, { headers: { Authorization: `Bearer ${s.cashierKey}` } });
  await redis.kill();
  try {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await cashierCreate()).status);
    expect(statuses).toEqual([201, 201, 201]);
    const limited = await cashierCreate();
    expectError(limited, 429, 'common.err.rate_limited');
    expect(limited.headers.get('ratelimit-limit')).toBe('3');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  } finally {
    await redis.startServer();
  }
});

it('starts without Redis, ready at once, and picks Redis up when it comes', async () => {
  await redis.kill();
  let redisUp = false;
  const log = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const gateway = await startGateway(gatewayConfig(sys.env), log);
  try {
    const http = httpClient(`http://127.0.0.1:${gateway.port}`);
    expect(await readyz(gateway.opsPort)).toBe(200);
    expect((await create(http)).status).toBe(201);
    expectError(await login(http), 503, 'common.err.unavailable');
    await redis.startServer();
    redisUp = true;
    await eventually(async () => (await login(http)).status === 200, 'sign-in answering once Redis is up', 15_000);
  } finally {
    await gateway.stop();
    if (!redisUp) await redis.startServer();
  }
});
