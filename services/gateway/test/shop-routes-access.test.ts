import { subjects } from '@pl/contracts';
import { forbidden } from '@pl/errors';
import { randomUUID } from 'node:crypto';
import { expectError } from '../../../tests/support/http';
import { startHarness, type Harness } from './harness';
import { shop, shopFixtures } from './shop-routes.fixtures';

/** Who may call the shop routes, secrets shown once, CSRF, the audit log, and the API keys' read-only routes. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());
beforeEach(() => h.reset());
const { signIn, signedIn, callsTo, scriptShops } = shopFixtures(() => h);

describe('credentials and methods on /api/v1/shops', () => {
  const routes: [string, string, object | undefined][] = [
    ['GET', '/api/v1/shops', undefined],
    ['POST', '/api/v1/shops', { name: 'Tea' }],
    ['GET', '/api/v1/shops/42', undefined],
    ['PATCH', '/api/v1/shops/42', { name: 'Tea' }],
    ['POST', '/api/v1/shops/42/webhook-secret/rotate', {}],
    ['POST', '/api/v1/shops/42/webhook-test', {}],
    ['POST', '/api/v1/shops/42/cashier-key/reissue', {}],
  ];

  it.each(routes)('%s %s answers 401 without a session, with an API key pair and with a cashier key', async (method, path, body) => {
    scriptShops();
    const m = await h.merchant();
    const cashier = { Authorization: `Bearer ${h.cashierKey(m.id, 42)}` };
    for (const headers of [{}, m.keys, cashier, { Authorization: 'Bearer nope' }]) {
      expectError(await h.request(method, path, { headers, ...(body ? { body } : {}) }), 401, 'common.err.unauthorized');
    }
    expect(h.calls.filter((c) => c.subject !== subjects.shopsByCashierKey.name)).toEqual([]);
  });

  it.each([
    ['DELETE', '/api/v1/shops', 'GET, POST, HEAD'],
    ['PUT', '/api/v1/shops/42', 'GET, PATCH, HEAD'],
    ['DELETE', '/api/v1/shops/42', 'GET, PATCH, HEAD'],
    ['GET', '/api/v1/shops/42/webhook-secret/rotate', 'POST'],
    ['GET', '/api/v1/shops/42/webhook-test', 'POST'],
    ['PUT', '/api/v1/shops/42/cashier-key/reissue', 'POST'],
  ])('%s %s answers 405 with Allow %s', async (method, path, allow) => {
    const m = await signedIn();
    const res = await h.request(method, path, { headers: m.auth });
    expectError(res, 405, 'common.err.method_not_allowed');
    expect(res.headers.get('allow')).toBe(allow);
  });
});

describe('/merchant/v1/shops (API keys, read only)', () => {
  it('lists and reads with the API key pair, as the merchant', async () => {
    scriptShops();
    const m = await h.merchant();
    const list = await h.request('GET', '/merchant/v1/shops?limit=2', { headers: m.keys });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ shops: [shop({ id: 9 }), shop()], has_more: true, next_cursor: 'c2' });
    const one = await h.request('GET', '/merchant/v1/shops/42', { headers: m.keys });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(shop({ id: 42 }));
    expect(h.calls.map((c) => [c.subject, c.payload, c.identity])).toEqual([
      [
        subjects.shopsList.name,
        { limit: 2, cursor: null },
        { kind: 'merchant', merchant_id: m.id, auth: 'api_key', mode: 'live', email_confirmed: true },
      ],
      [subjects.shopsRead.name, { shop_id: 42 }, { kind: 'merchant', merchant_id: m.id, auth: 'api_key', mode: 'live', email_confirmed: true }],
    ]);
  });

  it('answers 400 for a bad query, 404 for a bad id, 405 for writes', async () => {
    const m = await h.merchant();
    const bad = await h.request('GET', '/merchant/v1/shops?limit=101', { headers: m.keys });
    expectError(bad, 400, 'common.err.validation_failed');
    expect(bad.body.error.details[0].field).toBe('limit');
    expectError(await h.request('GET', '/merchant/v1/shops/-3', { headers: m.keys }), 404, 'common.err.not_found');
    const post = await h.request('POST', '/merchant/v1/shops', { headers: m.keys, body: { name: 'Tea' } });
    expectError(post, 405, 'common.err.method_not_allowed');
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expectError(await h.request('PATCH', '/merchant/v1/shops/42', { headers: m.keys, body: { name: 'Tea' } }), 405, 'common.err.method_not_allowed');
    expect(h.calls).toEqual([]);
  });

  it('answers 401 without the pair, with a session and with a cashier key', async () => {
    const m = await signedIn();
    const cashier = { Authorization: `Bearer ${h.cashierKey(m.id, 42)}` };
    for (const path of ['/merchant/v1/shops', '/merchant/v1/shops/42']) {
      for (const headers of [{}, m.auth, cashier]) expectError(await h.request('GET', path, { headers }), 401, 'common.err.unauthorized');
    }
  });
});

describe('secrets are shown once', () => {
  it.each([
    ['/api/v1/shops/42/webhook-secret/rotate', subjects.shopsRotateSecret],
    ['/api/v1/shops/42/cashier-key/reissue', subjects.shopsReissueCashierKey],
  ])('a replayed Idempotency-Key on %s is 409, the call is made once; another shop with the key is 409 too', async (path, subject) => {
    scriptShops();
    const m = await signedIn();
    const headers = { ...m.auth, 'Idempotency-Key': `k-${randomUUID()}` };
    expect((await h.request('POST', path, { headers, body: {} })).status).toBe(200);
    const replay = await h.request('POST', path, { headers, body: {} });
    expectError(replay, 409, 'common.err.idempotency_conflict');
    expect(replay.text).not.toMatch(/whsecret-new|svc_live_/);
    expectError(await h.request('POST', path.replace('/42/', '/43/'), { headers, body: {} }), 409, 'common.err.idempotency_conflict');
    expect(callsTo(subject)).toHaveLength(1);
  });

  it('a fresh Idempotency-Key rotates again', async () => {
    scriptShops();
    const m = await signedIn();
    for (const key of ['k-a', 'k-b']) {
      const headers = { ...m.auth, 'Idempotency-Key': `${key}-${randomUUID()}` };
      expect((await h.request('POST', '/api/v1/shops/42/webhook-secret/rotate', { headers, body: {} })).status).toBe(200);
    }
    expect(callsTo(subjects.shopsRotateSecret)).toHaveLength(2);
  });
});

describe('CSRF on cookie sessions', () => {
  const origin = 'http://localhost:8080';

  it('refuses a cookie-authenticated change from another origin or none with 403, before asking the shops service', async () => {
    scriptShops();
    const m = await signedIn();
    const cookie = `sid=${m.auth.Authorization.slice('Bearer '.length)}`;
    for (const extra of [{}, { Origin: 'https://evil.example' }, { Referer: 'https://evil.example/page' }] as Record<string, string>[]) {
      const headers = { Cookie: cookie, ...extra };
      expectError(await h.request('POST', '/api/v1/shops', { headers, body: { name: 'Tea' } }), 403, 'common.err.forbidden');
      expectError(await h.request('PATCH', '/api/v1/shops/42', { headers, body: { name: 'Tea' } }), 403, 'common.err.forbidden');
      expectError(await h.request('POST', '/api/v1/shops/42/cashier-key/reissue', { headers, body: {} }), 403, 'common.err.forbidden');
    }
    expect(h.calls).toEqual([]);
  });

  it('accepts the cookie from the dashboard origin, and for reads from anywhere', async () => {
    scriptShops();
    const m = await signedIn();
    const cookie = `sid=${m.auth.Authorization.slice('Bearer '.length)}`;
    expect((await h.request('POST', '/api/v1/shops', { headers: { Cookie: cookie, Origin: origin }, body: { name: 'Tea' } })).status).toBe(201);
    expect(
      (await h.request('PATCH', '/api/v1/shops/42', { headers: { Cookie: cookie, Referer: `${origin}/dashboard/shops` }, body: {} })).status,
    ).toBe(200);
    expect((await h.request('GET', '/api/v1/shops', { headers: { Cookie: cookie } })).status).toBe(200);
  });
});

describe('audit log', () => {
  it('records a rotation and a cashier-key reissue with the shop id and the client address, and nothing for a refused one', async () => {
    scriptShops();
    const m = await signIn(true);
    expect((await h.request('POST', '/api/v1/shops/42/webhook-secret/rotate', { headers: m.auth, body: { overlap_minutes: 0 } })).status).toBe(200);
    expect((await h.request('POST', '/api/v1/shops/43/cashier-key/reissue', { headers: m.auth })).status).toBe(200);
    h.on(subjects.shopsReissueCashierKey.name, async () => {
      throw forbidden('Shop belongs to another merchant');
    });
    expectError(await h.request('POST', '/api/v1/shops/44/cashier-key/reissue', { headers: m.auth }), 403, 'common.err.forbidden');
    const log = await h.request('GET', '/api/v1/audit-events', { headers: m.auth });
    expect(log.status).toBe(200);
    const shopEvents = log.body.audit_events.filter((e: { type: string }) => e.type.startsWith('shop.'));
    expect(shopEvents).toEqual([
      expect.objectContaining({ type: 'shop.cashier_key_reissued', subject: '43', ip: expect.stringMatching(/127\.0\.0\.1$/) }),
      expect.objectContaining({ type: 'shop.webhook_secret_rotated', subject: '42', ip: expect.stringMatching(/127\.0\.0\.1$/) }),
    ]);
  });
});
