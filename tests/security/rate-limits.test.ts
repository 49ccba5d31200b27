import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { expectError } from '../support/http';

/** Budgets are shrunk so a test can spend them; the limiter is the real one, counting in Redis. */
let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
beforeAll(async () => {
  sys = await startSystem({
    env: {
      RATE_LIMIT_API_KEY_PER_MINUTE: '5',
      RATE_LIMIT_CASHIER_PER_MINUTE: '3',
      RATE_LIMIT_SESSION_PER_MINUTE: '4',
      RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '50',
      LOGIN_LOCKOUT_FAILURES: '3',
    },
  });
  ({ merchant, shop } = await sys.merchantWithShop());
});
afterAll(() => sys?.stop());

const spend = async (n: number, call: () => Promise<{ status: number }>): Promise<number[]> => {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await call()).status);
  return statuses;
};

it('limits an API key pair: RateLimit-* headers count down, then 429 rate_limited with Retry-After', async () => {
  const list = () => sys.http.get('/merchant/v1/payment-links', { headers: merchant.keys });
  const first = await list();
  expect(first.headers.get('ratelimit-limit')).toBe('5');
  expect(first.headers.get('ratelimit-remaining')).toBe('4');
  expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
  expect(await spend(4, list)).toEqual([200, 200, 200, 200]);
  const limited = await list();
  expectError(limited, 429, 'common.err.rate_limited');
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(limited.headers.get('ratelimit-remaining')).toBe('0');
  // Creates share the key's budget, and a refused create writes nothing.
  const create = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: merchant.keys });
  expectError(create, 429, 'common.err.rate_limited');
  const rows = await sys.sql<{ n: string }>('SELECT count(*) AS n FROM links.payment_links');
  expect(Number(rows[0]!.n)).toBe(0);
});

it('keeps budgets apart: another merchant\'s key is not limited by the first one\'s spending', async () => {
  const other = await sys.merchantWithShop();
  expect((await sys.http.get('/merchant/v1/payment-links', { headers: other.merchant.keys })).status).toBe(200);
});

it('limits a cashier key per shop', async () => {
  const { shop: s } = await sys.merchantWithShop();
  const create = () => sys.http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: { Authorization: `Bearer ${s.cashierKey}` } });
  expect(await spend(3, create)).toEqual([201, 201, 201]);
  expectError(await create(), 429, 'common.err.rate_limited');
});

it('limits a session', async () => {
  const { merchant: m } = await sys.merchantWithShop();
  const token = await sys.login(m);
  const list = () => sys.http.get('/api/v1/payment-links', { headers: { Authorization: `Bearer ${token}` } });
  expect(await spend(4, list)).toEqual([200, 200, 200, 200]);
  expectError(await list(), 429, 'common.err.rate_limited');
});

it('locks a login name out after repeated failures, the same way whether or not the account exists', async () => {
  const { merchant: m } = await sys.merchantWithShop();
  const attempt = (email: string, password: string) => sys.http.post('/api/v1/auth/login', { email, password });
  for (const email of [m.email, 'nobody-here@example.com']) {
    expect(await spend(3, () => attempt(email, 'wrong-password'))).toEqual([401, 401, 401]);
    const locked = await attempt(email, 'wrong-password');
    expectError(locked, 429, 'common.err.rate_limited');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  }
  // Locked means locked: even the right password waits, so guessing gains nothing.
  expectError(await attempt(m.email, m.password), 429, 'common.err.rate_limited');
  // Another account is untouched.
  const { merchant: fresh } = await sys.merchantWithShop();
  expect((await attempt(fresh.email, fresh.password)).status).toBe(200);
});

it('limits login attempts per client IP', async () => {
  const tight = await startSystem({ env: { RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '2' } });
  try {
    const attempt = () => tight.http.post('/api/v1/auth/login', { email: 'x@example.com', password: 'y' });
    expect(await spend(2, attempt)).toEqual([401, 401]);
    expectError(await attempt(), 429, 'common.err.rate_limited');
  } finally {
    await tight.stop();
  }
});
