import { randomUUID } from 'node:crypto';
import { subjects } from '@pl/contracts';
import { startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());
beforeEach(() => h.reset());

const login = async (m: { email: string; password: string }) => {
  const res = await h.request('POST', '/api/v1/auth/login', { body: { email: m.email, password: m.password } });
  expect(res.status).toBe(200);
  return res;
};

describe('sessions', () => {
  it('logs in with an opaque token, an HttpOnly cookie and a +03:00 expiry', async () => {
    const m = await h.merchant();
    const res = await login(m);
    expect(res.body.session_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+03:00$/);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toContain(`sid=${res.body.session_token}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/);
  });

  it('answers 401 with the same message for a wrong password and an unknown email', async () => {
    const m = await h.merchant();
    const wrong = await h.request('POST', '/api/v1/auth/login', { body: { email: m.email, password: 'nope' } });
    const unknown = await h.request('POST', '/api/v1/auth/login', { body: { email: 'ghost@example.com', password: 'nope' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
  });

  it('authenticates dashboard routes by Bearer token or by cookie, reading email_confirmed from the account', async () => {
    const m = await h.merchant(false);
    const token = (await login(m)).body.session_token as string;
    expect((await h.request('GET', '/api/v1/payment-links', { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await h.request('GET', '/api/v1/payment-links', { headers: { Cookie: `sid=${token}` } })).status).toBe(200);
    // A cookie-authenticated change must come from the dashboard's origin (CSRF).
    const sameOrigin = { Cookie: `sid=${token}`, Origin: 'http://localhost:8080' };
    const created = await h.request('POST', '/api/v1/payment-links', { headers: sameOrigin, body: { shop_id: 3, amount: '5' } });
    expect(created.status).toBe(201);
    expect(h.calls.map((c) => c.identity)).toEqual(
      Array(3).fill({ kind: 'merchant', merchant_id: m.id, auth: 'session', mode: 'live', email_confirmed: false }),
    );
  });

  it('requires shop_id on the session create route', async () => {
    const token = (await login(await h.merchant())).body.session_token as string;
    const res = await h.request('POST', '/api/v1/payment-links', { headers: { Authorization: `Bearer ${token}` }, body: { amount: '5' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('shop_id');
  });

  it('ends the session on logout: 204, cookie cleared, the token refused at once', async () => {
    const token = (await login(await h.merchant())).body.session_token as string;
    const auth = { Authorization: `Bearer ${token}` };
    const out = await h.request('POST', '/api/v1/auth/logout', { headers: auth });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^sid=;.*Max-Age=0/);
    expect((await h.request('GET', '/api/v1/payment-links', { headers: auth })).status).toBe(401);
    expect((await h.request('POST', '/api/v1/auth/logout', { headers: auth })).status).toBe(401);
  });

  it.each<Record<string, string>>([{}, { Authorization: 'Bearer not-a-token' }, { Cookie: 'sid=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }])(
    'answers 401 for %j',
    async (headers) => {
      const res = await h.request('GET', '/api/v1/payment-links', { headers });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('common.err.unauthorized');
    },
  );

  it('does not accept account API keys on dashboard routes', async () => {
    const m = await h.merchant();
    expect((await h.request('GET', '/api/v1/payment-links', { headers: m.keys })).status).toBe(401);
  });
});

describe('cashier keys', () => {
  it('creates on /api/v1/merchant/payments with the shop of the key', async () => {
    const m = await h.merchant();
    const key = h.cashierKey(m.id, 42);
    const res = await h.request('POST', '/api/v1/merchant/payments', {
      headers: { Authorization: `Bearer ${key}` },
      body: { amount: '99.99', order_id: 'A-1' },
    });
    expect(res.status).toBe(201);
    expect(h.calls.map((c) => [c.subject, c.identity])).toEqual([
      [subjects.shopsByCashierKey.name, { kind: 'service', service: 'gateway' }],
      [subjects.linksCreate.name, { kind: 'merchant', merchant_id: m.id, auth: 'cashier', mode: 'live', shop_id: 42, email_confirmed: true }],
    ]);
    expect(h.calls[1]?.payload).toEqual({ amount_kopecks: 9999, order_id: 'A-1', description: null, expires_in_minutes: 1440, return_url: null });
  });

  it('is accepted on POST /api/v1/payment-links too, with shop_id optional', async () => {
    const m = await h.merchant();
    const key = h.cashierKey(m.id, 43);
    const res = await h.request('POST', '/api/v1/payment-links', { headers: { Authorization: `Bearer ${key}` }, body: { amount: 1 } });
    expect(res.status).toBe(201);
    expect(h.calls[1]?.identity).toMatchObject({ auth: 'cashier', shop_id: 43 });
  });

  it('answers 401 for an unknown cashier key and for a session token on the cashier route', async () => {
    const m = await h.merchant();
    const token = (await login(m)).body.session_token as string;
    for (const bearer of ['svc_live_unknownkey', token]) {
      const res = await h.request('POST', '/api/v1/merchant/payments', { headers: { Authorization: `Bearer ${bearer}` }, body: { amount: 1 } });
      expect(res.status).toBe(401);
    }
  });

  it('does not accept a cashier key for reading or canceling', async () => {
    const m = await h.merchant();
    const auth = { Authorization: `Bearer ${h.cashierKey(m.id, 44)}` };
    expect((await h.request('GET', '/api/v1/payment-links', { headers: auth })).status).toBe(401);
    expect((await h.request('POST', `/api/v1/payment-links/${randomUUID()}/cancel`, { headers: auth, body: {} })).status).toBe(401);
  });
});
