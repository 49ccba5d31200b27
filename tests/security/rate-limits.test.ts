import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { expectError } from '../support/http';

/**
 * Budgets are shrunk so a test can spend them; the limiter is the real one, counting in Redis. The sign-in
 * lockout keeps its default (10 failures in 15 minutes, as docs/product-decisions.md says). One proxy hop is
 * trusted, so a test gives itself a client IP of its own with `X-Forwarded-For`.
 */
let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
beforeAll(async () => {
  sys = await startSystem({
    env: {
      RATE_LIMIT_API_KEY_PER_MINUTE: '5',
      RATE_LIMIT_CASHIER_PER_MINUTE: '3',
      RATE_LIMIT_SESSION_PER_MINUTE: '4',
      RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '1000',
      RATE_LIMIT_AUTH_FAILURES_PER_IP_PER_MINUTE: '5',
      RATE_LIMIT_SELECT_PER_IP_PER_MINUTE: '3',
      TRUST_PROXY_HOPS: '1',
    },
  });
  ({ merchant, shop } = await sys.merchantWithShop());
});

const from = (ip: string): Record<string, string> => ({ 'X-Forwarded-For': ip });
const countOf = (statuses: number[], status: number): number => statuses.filter((s) => s === status).length;
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

it("keeps budgets apart: another merchant's key is not limited by the first one's spending", async () => {
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
  // The password alone: a stepped-up login spends two of the session's requests turning on a second factor.
  const token = await sys.login(m, { passwordOnly: true });
  const list = () => sys.http.get('/api/v1/payment-links', { headers: { Authorization: `Bearer ${token}` } });
  expect(await spend(4, list)).toEqual([200, 200, 200, 200]);
  expectError(await list(), 429, 'common.err.rate_limited');
});

describe('sign-in lockout per email', () => {
  const attempt = (email: string, password: string) => sys.http.post('/api/v1/auth/login', { email, password });

  /** 40 wrong passwords at once for one email; each answer is 401 or 429 with Retry-After. */
  async function fortyAtOnce(email: string): Promise<{ unauthorized: number; limited: number }> {
    const answers = await Promise.all(Array.from({ length: 40 }, () => attempt(email, 'wrong-password')));
    for (const res of answers.filter((r) => r.status === 429)) {
      expectError(res, 429, 'common.err.rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const statuses = answers.map((r) => r.status);
    return { unauthorized: countOf(statuses, 401), limited: countOf(statuses, 429) };
  }

  it('answers at most 10 of 40 parallel wrong passwords with 401 and the rest 429, the same for an unknown email', async () => {
    const { merchant: m } = await sys.merchantWithShop();
    const known = await fortyAtOnce(m.email);
    const unknown = await fortyAtOnce('nobody-here@example.com');
    console.log(
      `40 parallel wrong passwords: known email ${known.unauthorized}×401 ${known.limited}×429, unknown email ${unknown.unauthorized}×401 ${unknown.limited}×429`,
    );
    // Each attempt takes its point atomically before the password is checked: exactly the budget gets a guess.
    expect(known).toEqual({ unauthorized: 10, limited: 30 });
    expect(unknown).toEqual(known);
    // Locked means locked: even the right password waits, so guessing gains nothing.
    const locked = await attempt(m.email, m.password);
    expectError(locked, 429, 'common.err.rate_limited');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    // The email is matched as the account is: another spelling of its case is the same budget.
    expectError(await attempt(m.email.toUpperCase(), m.password), 429, 'common.err.rate_limited');
    // Another account is untouched.
    const { merchant: fresh } = await sys.merchantWithShop();
    expect((await attempt(fresh.email, fresh.password)).status).toBe(200);
  });

  it('counts only failures, and a successful sign-in does not reset them', async () => {
    const { merchant: m } = await sys.merchantWithShop();
    expect(await spend(9, () => attempt(m.email, 'wrong-password'))).toEqual(Array(9).fill(401));
    expect((await attempt(m.email, m.password)).status).toBe(200);
    expect((await attempt(m.email, 'wrong-password')).status).toBe(401);
    expectError(await attempt(m.email, m.password), 429, 'common.err.rate_limited');
  });
});

it('limits failed API-key authentications per client IP: parallel failures beyond the budget are 429, and the address waits', async () => {
  const ip = '203.0.113.7';
  const wrong = { 'X-API-Key': merchant.apiKey, 'X-API-Secret': 'sk_live_not-the-secret', ...from(ip) };
  const answers = await Promise.all(Array.from({ length: 20 }, () => sys.http.get('/merchant/v1/payment-links', { headers: wrong })));
  const statuses = answers.map((r) => r.status);
  console.log(`20 parallel wrong API secrets from one IP: ${countOf(statuses, 401)}×401 ${countOf(statuses, 429)}×429`);
  expect({ unauthorized: countOf(statuses, 401), limited: countOf(statuses, 429) }).toEqual({ unauthorized: 5, limited: 15 });
  const limited = answers.find((r) => r.status === 429)!;
  expectError(limited, 429, 'common.err.rate_limited');
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  // The address is refused any look-up until the minute is over, a right pair included.
  const { merchant: other } = await sys.merchantWithShop();
  expectError(await sys.http.get('/merchant/v1/payment-links', { headers: { ...other.keys, ...from(ip) } }), 429, 'common.err.rate_limited');
  // Another address is not.
  expect((await sys.http.get('/merchant/v1/payment-links', { headers: { ...other.keys, ...from('203.0.113.8') } })).status).toBe(200);
});

it('counts failed cashier-key authentications against the same per-IP budget as API key pairs', async () => {
  const ip = '203.0.113.9';
  // Well-formed (so looked up) but naming no shop: the last characters of a real key changed.
  const wrongKey = `${shop.cashierKey.slice(0, -4)}${shop.cashierKey.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
  const create = (headers: Record<string, string>) => sys.http.post('/api/v1/merchant/payments', { amount: '10.00' }, { headers });
  const answers = await Promise.all(Array.from({ length: 8 }, () => create({ Authorization: `Bearer ${wrongKey}`, ...from(ip) })));
  const statuses = answers.map((r) => r.status);
  expect({ unauthorized: countOf(statuses, 401), limited: countOf(statuses, 429) }).toEqual({ unauthorized: 5, limited: 3 });
  expectError(
    answers.find((r) => r.status === 429)!,
    429,
    'common.err.rate_limited',
  );
  // One budget per address: its wrong API key pairs are refused now too, on the session route family as well.
  const wrongPair = { 'X-API-Key': merchant.apiKey, 'X-API-Secret': 'sk_live_not-the-secret', ...from(ip) };
  expectError(await sys.http.get('/merchant/v1/payment-links', { headers: wrongPair }), 429, 'common.err.rate_limited');
  expectError(
    await sys.http.post('/api/v1/payment-links', { amount: '10.00' }, { headers: { Authorization: `Bearer ${wrongKey}`, ...from(ip) } }),
    429,
    'common.err.rate_limited',
  );
  const rows = await sys.sql<{ n: string }>(`SELECT count(*) AS n FROM links.payment_links WHERE shop_id = $1`, [shop.id]);
  expect(Number(rows[0]!.n)).toBe(0);
});

it("limits the checkout's method selection per client IP", async () => {
  const { merchant: m, shop: s } = await sys.merchantWithShop();
  const link = await sys.http.post('/merchant/v1/payment-links', { shop_id: s.id, amount: '10.00' }, { headers: m.keys });
  expect(link.status).toBe(201);
  const select = (ip: string) => sys.http.post(`/p/${link.body.id}/select`, { method: 'sbp' }, { headers: from(ip) });
  expect(await spend(3, () => select('198.51.100.1'))).toEqual([200, 200, 200]);
  const limited = await select('198.51.100.1');
  expectError(limited, 429, 'common.err.rate_limited');
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  expect((await select('198.51.100.2')).status).toBe(200);
});

it("counts the test checkout's simulator against the same per-IP budget as selection, refusing before the link moves", async () => {
  const { merchant: m, shop: s } = await sys.merchantWithShop();
  const link = await sys.http.post('/merchant/v1/payment-links', { shop_id: s.id, amount: '10.00' }, { headers: m.testKeys });
  expect(link.status).toBe(201);
  const ip = '198.51.100.7';
  expect(await spend(3, () => sys.http.post(`/p/${link.body.id}/select`, { method: 'sbp' }, { headers: from(ip) }))).toEqual([200, 200, 200]);
  const limited = await sys.http.post(`/p/${link.body.id}/simulate`, { status: 'paid' }, { headers: from(ip) });
  expectError(limited, 429, 'common.err.rate_limited');
  expect((await sys.http.get(`/merchant/v1/payment-links/${link.body.id}`, { headers: m.testKeys })).body.status).toBe('pending');
  expect((await sys.http.post(`/p/${link.body.id}/simulate`, { status: 'paid' }, { headers: from('198.51.100.8') })).status).toBe(200);
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
