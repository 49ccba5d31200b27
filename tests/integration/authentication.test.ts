import { expectError } from '../support/http';
import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
let linkId: string;
beforeAll(async () => {
  sys = await startSystem();
  ({ merchant, shop } = await sys.merchantWithShop());
  linkId = (await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: merchant.keys })).body.id;
});
afterAll(() => sys?.stop());

const apiKeyRoutes = () =>
  [
    ['POST', '/merchant/v1/payment-links', { shop_id: shop.id, amount: 1 }],
    ['POST', `/merchant/v1/payment-links/${linkId}/cancel`, {}],
    ['GET', `/merchant/v1/payment-links/${linkId}`, undefined],
    ['GET', '/merchant/v1/payment-links', undefined],
  ] as const;

const sessionRoutes = () =>
  [
    ['POST', '/api/v1/payment-links', { shop_id: shop.id, amount: 1 }],
    ['POST', `/api/v1/payment-links/${linkId}/cancel`, {}],
    ['GET', '/api/v1/payment-links', undefined],
  ] as const;

describe('account API keys on /merchant/v1', () => {
  const badCredentials = (): [string, Record<string, string>][] => [
    ['no headers', {}],
    ['only the public key', { 'X-API-Key': merchant.apiKey }],
    ['only the secret', { 'X-API-Secret': merchant.apiSecret }],
    ['a wrong secret', { 'X-API-Key': merchant.apiKey, 'X-API-Secret': 'sk_live_wrong' }],
    ['an unknown public key', { 'X-API-Key': 'pk_live_unknown', 'X-API-Secret': merchant.apiSecret }],
    ['keys swapped', { 'X-API-Key': merchant.apiSecret, 'X-API-Secret': merchant.apiKey }],
    ['keys of the wrong form', { 'X-API-Key': 'abc', 'X-API-Secret': 'def' }],
    ['a session token instead', { Authorization: 'Bearer whatever' }],
  ];

  it('answers 401 unauthorized on every route for every kind of bad credential', async () => {
    for (const [method, path, body] of apiKeyRoutes()) {
      for (const [label, headers] of badCredentials()) {
        const res = await sys.http.call(method, path, body === undefined ? { headers } : { headers, body });
        expect({ label, path, status: res.status, code: res.body?.error?.code }).toEqual({
          label,
          path,
          status: 401,
          code: 'common.err.unauthorized',
        });
      }
    }
  });

  it('does not accept a dashboard session on /merchant/v1 routes', async () => {
    const token = await sys.login(merchant);
    const res = await sys.http.get('/merchant/v1/payment-links', { headers: { Authorization: `Bearer ${token}`, Cookie: `sid=${token}` } });
    expectError(res, 401, 'common.err.unauthorized');
  });
});

describe('dashboard sessions on /api/v1', () => {
  it('answers 401 on every session route without a session or with a bad one', async () => {
    for (const [method, path, body] of sessionRoutes()) {
      for (const headers of [
        {},
        { Authorization: 'Bearer not-a-session' },
        { Cookie: 'sid=not-a-session' },
        { Authorization: 'Basic abc' },
        merchant.keys,
      ]) {
        const res = await sys.http.call(method, path, body === undefined ? { headers } : { headers, body });
        expect({ path, headers, status: res.status, code: res.body?.error?.code }).toEqual({
          path,
          headers,
          status: 401,
          code: 'common.err.unauthorized',
        });
      }
    }
  });

  it('logs in with the right password and sets an HttpOnly SameSite=Lax sid cookie', async () => {
    // A user without a second factor (the file's merchant got one when `sys.login` stepped it up).
    const fresh = await sys.merchant();
    const res = await sys.http.post('/api/v1/auth/login', { email: fresh.email, password: fresh.password });
    expect(res.status).toBe(200);
    expect(typeof res.body.session_token).toBe('string');
    expect(res.body.session_token.length).toBeGreaterThanOrEqual(32);
    expect(res.body.session_token.split('.')).toHaveLength(1); // opaque, not a JWT
    expect(res.body.expires_at).toMatch(/\+03:00$/);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toContain(`sid=${res.body.session_token}`);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//i);
  });

  it('answers 401 with the same message for a wrong password and an unknown email', async () => {
    const wrong = await sys.http.post('/api/v1/auth/login', { email: merchant.email, password: 'nope' });
    const unknown = await sys.http.post('/api/v1/auth/login', { email: 'nobody@example.com', password: 'nope' });
    expectError(wrong, 401, 'common.err.unauthorized');
    expectError(unknown, 401, 'common.err.unauthorized');
    expect(wrong.body.error.message).toBe(unknown.body.error.message);
  });

  it('validates the login body', async () => {
    expectError(await sys.http.post('/api/v1/auth/login', { email: merchant.email }), 400, 'common.err.validation_failed');
    expectError(await sys.http.call('POST', '/api/v1/auth/login', { body: '{"email":' }), 400, 'common.err.invalid_json');
  });

  it('lets an account with an unconfirmed email log in and read', async () => {
    const { merchant: m } = await sys.merchantWithShop({ emailConfirmed: false });
    const token = await sys.login(m);
    const res = await sys.http.get('/api/v1/payment-links', { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
  });

  it('ends the session on logout: 204, and the token and cookie stop working at once', async () => {
    const token = await sys.login(merchant);
    const auth = { Authorization: `Bearer ${token}` };
    expect((await sys.http.get('/api/v1/payment-links', { headers: auth })).status).toBe(200);
    const out = await sys.http.post('/api/v1/auth/logout', undefined, { headers: auth });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie') ?? '').toMatch(/sid=;|Expires=Thu, 01 Jan 1970/i);
    expectError(await sys.http.get('/api/v1/payment-links', { headers: auth }), 401, 'common.err.unauthorized');
    expectError(await sys.http.get('/api/v1/payment-links', { headers: { Cookie: `sid=${token}` } }), 401, 'common.err.unauthorized');
  });

  it('answers 401 to a logout without a session', async () => {
    expectError(await sys.http.post('/api/v1/auth/logout'), 401, 'common.err.unauthorized');
  });

  it('scopes a session to its own merchant', async () => {
    const other = await sys.merchantWithShop();
    const token = await sys.login(other.merchant);
    const list = await sys.http.get('/api/v1/payment-links', { headers: { Authorization: `Bearer ${token}` } });
    expect(list.body.payment_links).toEqual([]);
    expectError(
      await sys.http.post(`/api/v1/payment-links/${linkId}/cancel`, {}, { headers: { Authorization: `Bearer ${token}` } }),
      403,
      'common.err.forbidden',
    );
  });
});
