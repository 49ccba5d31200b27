import { eventually } from '@pl/testing';
import { expectError, type ApiResponse } from '../support/http';
import { PrivateRedis } from '../support/private-servers';
import { sandboxPaymentId, startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * A real redis-server crash (SIGKILL) and restart under the gateway, once without persistence (as the
 * machine's Redis and docker-compose.yml run it) and once with AOF and `appendfsync always`. What the
 * gateway keeps in Redis: dashboard sessions, Idempotency-Key records and rate-limit counters (see
 * docs/operations.md, "Redis restarts: what survives").
 */

jest.setTimeout(60_000);

/** Generous bound on any one request: the gateway's Redis commands time out after 1 s, its NATS requests after 2 s. */
const SLOWEST_MS = 4000;
const OUTAGE_MS = 2500;

describe.each([
  { variant: 'without persistence', aof: false },
  { variant: 'with AOF (appendfsync always)', aof: true },
])('Redis restarted $variant', ({ aof }) => {
  let redis: PrivateRedis;
  let sys: TestSystem;
  let merchant: TestMerchant;
  let shop: TestShop;
  beforeAll(async () => {
    redis = await PrivateRedis.start({ aof });
    sys = await startSystem({ redisUrl: redis.url });
    ({ merchant, shop } = await sys.merchantWithShop());
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
    await redis?.close();
  }, 60_000);

  /** Every response the test saw, to check that none was a 500 or slow. */
  const seen: { what: string; ms: number; res: ApiResponse }[] = [];
  const call = async (what: string, fn: () => Promise<ApiResponse>): Promise<ApiResponse> => {
    const started = Date.now();
    const res = await fn();
    seen.push({ what, ms: Date.now() - started, res });
    return res;
  };
  const createWithKey = (key: string) =>
    call('create with Idempotency-Key', () =>
      sys.http.post(
        '/merchant/v1/payment-links',
        { shop_id: shop.id, amount: '25.00', order_id: key },
        { headers: { ...merchant.keys, 'Idempotency-Key': key } },
      ),
    );
  const createWithoutKey = () =>
    call('create without key', () => sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '1.00' }, { headers: merchant.keys }));
  const listWithSession = (token: string) =>
    call('list with session', () => sys.http.get('/api/v1/payment-links', { headers: { Authorization: `Bearer ${token}` } }));
  const readyz = async (): Promise<number> => (await fetch(`http://127.0.0.1:${sys.gatewayOpsPort}/readyz`)).status;
  const login = () => call('login', () => sys.http.post('/api/v1/auth/login', { email: merchant.email, password: merchant.password }));

  it(`${aof ? 'keeps' : 'forgets'} sessions, idempotency keys and rate-limit counters; API-key routes without a key serve and /readyz stays 200 throughout; no 500s`, async () => {
    const session = (await login()).body.session_token as string;
    expect((await listWithSession(session)).status).toBe(200);
    const original = await createWithKey('restart-key-1');
    expect(original.status).toBe(201);
    const replay = await createWithKey('restart-key-1');
    expect(replay.body.id).toBe(original.body.id);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const budget = Number(replay.headers.get('ratelimit-limit'));
    const remainingBefore = Number(replay.headers.get('ratelimit-remaining'));
    expect(remainingBefore).toBeLessThan(budget - 1);

    await redis.kill();
    try {
      // Routes that need Redis: 503 with Retry-After, fast.
      for (const res of [await listWithSession(session), await login(), await createWithKey('restart-key-2')]) {
        expectError(res, 503, 'common.err.unavailable');
        expect(res.headers.get('retry-after')).toBe('1');
      }
      // API-key and cashier routes without an Idempotency-Key need no Redis (rate limits are counted per process), nor do callbacks.
      const during = await createWithoutKey();
      expect(during.status).toBe(201);
      expect((await call('read', () => sys.http.get(`/merchant/v1/payment-links/${during.body.id}`, { headers: merchant.keys }))).status).toBe(200);
      const cashier = await call('cashier create', () =>
        sys.http.post('/api/v1/merchant/payments', { amount: '2.00' }, { headers: { Authorization: `Bearer ${shop.cashierKey}` } }),
      );
      expect(cashier.status).toBe(201);
      expect((await call('provider callback', () => sys.providerCallback(sandboxPaymentId(during.body.id), 'paid'))).status).toBe(200);
      // Ready all along: the gateway can still serve its core work, so it stays in the Service.
      expect(await readyz()).toBe(200);
      // Keep it down past the gateway's longest reconnect backoff (1 s), answering 503 all along.
      const downSince = Date.now();
      while (Date.now() - downSince < OUTAGE_MS) {
        expect((await listWithSession(session)).status).toBe(503);
        expect(await readyz()).toBe(200);
        await new Promise((r) => setTimeout(r, 100)); // sampling the outage, a dashboard's retry pace
      }
    } finally {
      await redis.startServer();
    }
    const restartedAt = Date.now();

    // The gateway reconnects by itself: the old session's answer stops being 503.
    let last: ApiResponse | undefined;
    await eventually(async () => (last = await listWithSession(session)).status !== 503, 'session routes answering again', 15_000);
    const afterRestart = last!;
    console.log(`redis restart (${aof ? 'AOF' : 'no persistence'}): session routes answer again ${Date.now() - restartedAt} ms after the restart`);
    if (aof) {
      expect(afterRestart.status).toBe(200);
    } else {
      // Every dashboard user is logged out and must log in again.
      expectError(afterRestart, 401, 'common.err.unauthorized');
    }
    expect(await readyz()).toBe(200);
    const relogin = await login();
    expect(relogin.status).toBe(200);
    expect((await listWithSession(relogin.body.session_token as string)).status).toBe(200);

    // The merchant's retry of the create that was answered before the crash.
    const retried = await createWithKey('restart-key-1');
    // Replayed either way: without persistence Redis forgot the key, but the links service kept it with the link.
    expect(retried.status).toBe(201);
    expect(retried.body.id).toBe(original.body.id);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    // The key that got a 503 during the outage was never claimed: its retry runs now.
    expect((await createWithKey('restart-key-2')).status).toBe(201);

    const remainingAfter = Number(retried.headers.get('ratelimit-remaining'));
    if (aof) {
      expect(remainingAfter).toBeLessThan(remainingBefore);
    } else {
      // Counters start over: only the requests since the restart count (the retry itself among them).
      expect(remainingAfter).toBeGreaterThan(remainingBefore);
      expect(budget - remainingAfter).toBeLessThanOrEqual(3);
    }

    expect(seen.filter((s) => s.res.status >= 500 && s.res.status !== 503).map((s) => `${s.what}: ${s.res.status}`)).toEqual([]);
    expect(Math.max(...seen.map((s) => s.ms))).toBeLessThan(SLOWEST_MS);
  });
});
