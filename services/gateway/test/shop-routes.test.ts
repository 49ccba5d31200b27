import { subjects, type MerchantShop, type WebhookDelivery } from '@pl/contracts';
import { forbidden, noWebhookUrl, notFound } from '@pl/errors';
import { randomUUID } from 'node:crypto';
import { expectError } from '../../../tests/support/http';
import { startHarness, type Harness, type Reply } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());
beforeEach(() => h.reset());

const shop = (over: Partial<MerchantShop> = {}): MerchantShop => ({
  id: 7,
  name: 'Coffee',
  status: 'pending',
  fee_payer: 'merchant',
  crypto_bps: 100,
  sbp_bps: 100,
  webhook_url: null,
  webhook_secret_set: true,
  previous_secret_valid_until: null,
  created_at: '2026-11-22T12:00:00+03:00',
  updated_at: '2026-11-22T12:00:00+03:00',
  ...over,
});

const testDelivery = (shopId: number): WebhookDelivery => ({
  id: randomUUID(),
  webhook_id: `msg_${randomUUID()}`,
  payment_link_id: null,
  shop_id: shopId,
  event: 'webhook.test',
  status: 'pending',
  attempts: [],
  attempts_omitted: 0,
});

const signIn = async (emailConfirmed: boolean) => {
  const m = await h.merchant(emailConfirmed);
  const res = await h.request('POST', '/api/v1/auth/login', { body: { email: m.email, password: m.password } });
  expect(res.status).toBe(200);
  return { ...m, auth: { Authorization: `Bearer ${res.body.session_token as string}` } };
};
type SignedIn = Awaited<ReturnType<typeof signIn>>;
/** Sign-ins are throttled per address, so the file signs in two merchants once: confirmed and not. */
const sessions = new Map<boolean, Promise<SignedIn>>();
/** A merchant signed in to the dashboard: its session as a Bearer header. */
const signedIn = (emailConfirmed = true): Promise<SignedIn> => {
  let s = sessions.get(emailConfirmed);
  if (!s) sessions.set(emailConfirmed, (s = signIn(emailConfirmed)));
  return s;
};

/** The fields a 400 names, each once (an empty name is both too short and blank). */
const fieldsNamed = (res: Reply): string[] => [...new Set(res.body.error.details.map((d: { field: string }) => d.field))].sort() as string[];

const callsTo = (subject: { name: string }) => h.calls.filter((c) => c.subject === subject.name);

/** The shops service as the routes need it: echoes what it was asked for. */
const scriptShops = (): void => {
  h.on(subjects.shopsList.name, async () => ({ shops: [shop({ id: 9 }), shop()], has_more: true, next_cursor: 'c2' }));
  h.on(subjects.shopsRead.name, async (p) => shop({ id: (p as { shop_id: number }).shop_id }));
  h.on(subjects.shopsCreate.name, async (p) => {
    const c = p as { name: string; webhook_url: string | null; fee_payer: MerchantShop['fee_payer'] };
    return shop({
      id: 100 + callsTo(subjects.shopsCreate).length,
      name: c.name,
      webhook_url: c.webhook_url,
      fee_payer: c.fee_payer,
      webhook_secret_set: true,
    });
  });
  h.on(subjects.shopsUpdate.name, async (p) => {
    const { shop_id, ...changes } = p as { shop_id: number } & Partial<MerchantShop>;
    return shop({ id: shop_id, ...changes });
  });
  h.on(subjects.shopsRotateSecret.name, async () => ({
    webhook_secret: 'whsecret-new',
    standard_webhooks_secret: `whsec_${Buffer.from('whsecret-new').toString('base64')}`,
    previous_valid_until: '2026-11-23T12:00:00+03:00',
  }));
  h.on(subjects.shopsReissueCashierKey.name, async () => ({ cashier_key: `svc_live_${randomUUID()}` }));
  h.on(subjects.deliveriesTest.name, async (p) => testDelivery((p as { shop_id: number }).shop_id));
};

describe('GET /api/v1/shops', () => {
  it('lists the shops of the session merchant with the default page size', async () => {
    scriptShops();
    const m = await signedIn(false);
    const res = await h.request('GET', '/api/v1/shops', { headers: m.auth });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ shops: [shop({ id: 9 }), shop()], has_more: true, next_cursor: 'c2' });
    expect(callsTo(subjects.shopsList)).toEqual([
      expect.objectContaining({
        payload: { limit: 20, cursor: null },
        identity: { kind: 'merchant', merchant_id: m.id, auth: 'session', email_confirmed: false },
      }),
    ]);
  });

  it('passes limit and cursor on', async () => {
    scriptShops();
    const m = await signedIn();
    expect((await h.request('GET', '/api/v1/shops?limit=5&cursor=abc', { headers: m.auth })).status).toBe(200);
    expect(callsTo(subjects.shopsList)[0]?.payload).toEqual({ limit: 5, cursor: 'abc' });
  });

  it('answers 400 naming a bad limit and an unknown query field, without asking the shops service', async () => {
    const m = await signedIn();
    const res = await h.request('GET', '/api/v1/shops?limit=0&status=approved', { headers: m.auth });
    expectError(res, 400, 'common.err.validation_failed');
    expect(fieldsNamed(res)).toEqual(['limit', 'status']);
    expect(h.calls).toEqual([]);
  });
});

describe('POST /api/v1/shops', () => {
  it('creates a shop with the defaults filled in: 201', async () => {
    scriptShops();
    const m = await signedIn();
    const res = await h.request('POST', '/api/v1/shops', { headers: m.auth, body: { name: 'Tea' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Tea', status: 'pending', fee_payer: 'merchant', webhook_url: null });
    expect(callsTo(subjects.shopsCreate)[0]?.payload).toEqual({ name: 'Tea', webhook_url: null, fee_payer: 'merchant' });
  });

  it('passes webhook_url and fee_payer on', async () => {
    scriptShops();
    const m = await signedIn();
    const body = { name: 'Tea', webhook_url: 'https://example.com/hook', fee_payer: 'client' };
    expect((await h.request('POST', '/api/v1/shops', { headers: m.auth, body })).status).toBe(201);
    expect(callsTo(subjects.shopsCreate)[0]?.payload).toEqual(body);
  });

  it.each([
    [{ name: 'Tea', status: 'approved' }, ['status']],
    [{ name: 'Tea', crypto_bps: 0, sbp_bps: 0 }, ['crypto_bps', 'sbp_bps']],
    [{ name: '' }, ['name']],
    [{ name: '   ' }, ['name']],
    [{ name: 'x'.repeat(101) }, ['name']],
    [{}, ['name']],
    [{ name: 'Tea', fee_payer: 'nobody' }, ['fee_payer']],
    [{ name: 'Tea', webhook_url: 5 }, ['webhook_url']],
  ])('answers 400 validation_failed for %j naming %j', async (body, fields) => {
    const m = await signedIn();
    const res = await h.request('POST', '/api/v1/shops', { headers: m.auth, body });
    expectError(res, 400, 'common.err.validation_failed');
    expect(fieldsNamed(res)).toEqual(fields);
    expect(h.calls).toEqual([]);
  });

  it('answers 415 for a body that is not JSON and 400 invalid_json for broken JSON', async () => {
    const m = await signedIn();
    expectError(
      await h.request('POST', '/api/v1/shops', { headers: { ...m.auth, 'Content-Type': 'text/plain' }, body: 'name=Tea' }),
      415,
      'common.err.unsupported_media_type',
    );
    expectError(await h.request('POST', '/api/v1/shops', { headers: m.auth, body: '{"name":' }), 400, 'common.err.invalid_json');
  });

  it('replays the first answer for the same Idempotency-Key and body, creating one shop', async () => {
    scriptShops();
    const m = await signedIn();
    const headers = { ...m.auth, 'Idempotency-Key': `k-${randomUUID()}` };
    const first = await h.request('POST', '/api/v1/shops', { headers, body: { name: 'Tea' } });
    const again = await h.request('POST', '/api/v1/shops', { headers, body: { name: 'Tea' } });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(callsTo(subjects.shopsCreate)).toHaveLength(1);
    const other = await h.request('POST', '/api/v1/shops', { headers, body: { name: 'Coffee' } });
    expectError(other, 409, 'common.err.idempotency_conflict');
  });

  it("passes the shops service's 403 (unconfirmed email) on", async () => {
    h.on(subjects.shopsCreate.name, async () => {
      throw forbidden('Confirm your email');
    });
    const m = await signedIn(false);
    expectError(await h.request('POST', '/api/v1/shops', { headers: m.auth, body: { name: 'Tea' } }), 403, 'common.err.forbidden');
  });
});

describe('GET and PATCH /api/v1/shops/{id}', () => {
  it('reads one shop', async () => {
    scriptShops();
    const m = await signedIn();
    const res = await h.request('GET', '/api/v1/shops/42', { headers: m.auth });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(shop({ id: 42 }));
    expect(callsTo(subjects.shopsRead)[0]?.payload).toEqual({ shop_id: 42 });
  });

  it.each(['0', '-1', '01', '1.5', 'abc', '99999999999999999', `${Number.MAX_SAFE_INTEGER + 1}`])('answers 404 for the path id %s', async (id) => {
    const m = await signedIn();
    expectError(await h.request('GET', `/api/v1/shops/${id}`, { headers: m.auth }), 404, 'common.err.not_found');
    expectError(await h.request('PATCH', `/api/v1/shops/${id}`, { headers: m.auth, body: { name: 'x' } }), 404, 'common.err.not_found');
    expect(h.calls).toEqual([]);
  });

  it("passes the shops service's 403 and 404 on", async () => {
    h.on(subjects.shopsRead.name, async (p) => {
      throw (p as { shop_id: number }).shop_id === 1 ? forbidden('Shop belongs to another merchant') : notFound('Shop not found');
    });
    const m = await signedIn();
    expectError(await h.request('GET', '/api/v1/shops/1', { headers: m.auth }), 403, 'common.err.forbidden');
    expectError(await h.request('GET', '/api/v1/shops/2', { headers: m.auth }), 404, 'common.err.not_found');
  });

  it('updates the given fields, webhook_url null clears it', async () => {
    scriptShops();
    const m = await signedIn(false);
    const res = await h.request('PATCH', '/api/v1/shops/42', { headers: m.auth, body: { name: 'New', webhook_url: null, fee_payer: 'split' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 42, name: 'New', webhook_url: null, fee_payer: 'split' });
    expect(callsTo(subjects.shopsUpdate)[0]?.payload).toEqual({ shop_id: 42, name: 'New', webhook_url: null, fee_payer: 'split' });
  });

  it('answers an empty patch with the shop unchanged (200)', async () => {
    scriptShops();
    const m = await signedIn();
    const res = await h.request('PATCH', '/api/v1/shops/42', { headers: m.auth, body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(shop({ id: 42 }));
    expect(callsTo(subjects.shopsUpdate)[0]?.payload).toEqual({ shop_id: 42 });
  });

  it('answers 400 naming status, rates and unknown fields, before the 404 of a bad id', async () => {
    const m = await signedIn();
    const res = await h.request('PATCH', '/api/v1/shops/abc', {
      headers: m.auth,
      body: { status: 'approved', crypto_bps: 1, sbp_bps: 1, owner: 'x' },
    });
    expectError(res, 400, 'common.err.validation_failed');
    expect(fieldsNamed(res)).toEqual(['crypto_bps', 'owner', 'sbp_bps', 'status']);
    expect(h.calls).toEqual([]);
  });
});

describe('POST /api/v1/shops/{id}/webhook-secret/rotate', () => {
  it('rotates with a day of overlap by default, also without a body', async () => {
    scriptShops();
    const m = await signedIn();
    const res = await h.request('POST', '/api/v1/shops/42/webhook-secret/rotate', { headers: m.auth });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      webhook_secret: 'whsecret-new',
      standard_webhooks_secret: `whsec_${Buffer.from('whsecret-new').toString('base64')}`,
      previous_valid_until: '2026-11-23T12:00:00+03:00',
    });
    expect(callsTo(subjects.shopsRotateSecret)[0]?.payload).toEqual({ shop_id: 42, overlap_minutes: 1440 });
  });

  it('passes overlap_minutes 0 and 4320 on', async () => {
    scriptShops();
    const m = await signedIn();
    for (const overlap_minutes of [0, 4320]) {
      expect((await h.request('POST', '/api/v1/shops/42/webhook-secret/rotate', { headers: m.auth, body: { overlap_minutes } })).status).toBe(200);
    }
    expect(callsTo(subjects.shopsRotateSecret).map((c) => c.payload)).toEqual([
      { shop_id: 42, overlap_minutes: 0 },
      { shop_id: 42, overlap_minutes: 4320 },
    ]);
  });

  it.each([{ overlap_minutes: -1 }, { overlap_minutes: 4321 }, { overlap_minutes: 1.5 }, { overlap_minutes: '60' }, { overlap: 60 }])(
    'answers 400 for %j',
    async (body) => {
      const m = await signedIn();
      const res = await h.request('POST', '/api/v1/shops/42/webhook-secret/rotate', { headers: m.auth, body });
      expectError(res, 400, 'common.err.validation_failed');
      expect(res.body.error.details).toHaveLength(1);
      expect(h.calls).toEqual([]);
    },
  );

  it('answers 404 for a bad id', async () => {
    const m = await signedIn();
    expectError(await h.request('POST', '/api/v1/shops/x/webhook-secret/rotate', { headers: m.auth, body: {} }), 404, 'common.err.not_found');
  });
});

describe('POST /api/v1/shops/{id}/webhook-test', () => {
  it('answers 202 with the webhook.test delivery', async () => {
    scriptShops();
    const m = await signedIn();
    const res = await h.request('POST', '/api/v1/shops/42/webhook-test', { headers: m.auth, body: {} });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ shop_id: 42, event: 'webhook.test', payment_link_id: null });
    expect(callsTo(subjects.deliveriesTest)[0]?.payload).toEqual({ shop_id: 42 });
  });

  it("passes the notifier's 422 for a shop without a webhook address on", async () => {
    h.on(subjects.deliveriesTest.name, async () => {
      throw noWebhookUrl();
    });
    const m = await signedIn();
    expectError(await h.request('POST', '/api/v1/shops/42/webhook-test', { headers: m.auth }), 422, 'shop.err.no_webhook_url');
  });

  it('answers 400 for a non-empty body and 404 for a bad id', async () => {
    const m = await signedIn();
    const res = await h.request('POST', '/api/v1/shops/42/webhook-test', { headers: m.auth, body: { url: 'https://x.example' } });
    expectError(res, 400, 'common.err.validation_failed');
    expect(res.body.error.details[0].field).toBe('url');
    expectError(await h.request('POST', '/api/v1/shops/0/webhook-test', { headers: m.auth, body: {} }), 404, 'common.err.not_found');
    expect(h.calls).toEqual([]);
  });
});

describe('POST /api/v1/shops/{id}/cashier-key/reissue', () => {
  it('answers 200 with the new cashier key', async () => {
    scriptShops();
    const m = await signedIn();
    const res = await h.request('POST', '/api/v1/shops/42/cashier-key/reissue', { headers: m.auth, body: {} });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['cashier_key']);
    expect(res.body.cashier_key).toMatch(/^svc_live_/);
    expect(callsTo(subjects.shopsReissueCashierKey)[0]?.payload).toEqual({ shop_id: 42 });
  });

  it('answers 400 for a non-empty body and 404 for a bad id', async () => {
    const m = await signedIn();
    expectError(
      await h.request('POST', '/api/v1/shops/42/cashier-key/reissue', { headers: m.auth, body: { shop_id: 1 } }),
      400,
      'common.err.validation_failed',
    );
    expectError(await h.request('POST', '/api/v1/shops/4.2/cashier-key/reissue', { headers: m.auth, body: {} }), 404, 'common.err.not_found');
    expect(h.calls).toEqual([]);
  });
});

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
      [subjects.shopsList.name, { limit: 2, cursor: null }, { kind: 'merchant', merchant_id: m.id, auth: 'api_key', email_confirmed: true }],
      [subjects.shopsRead.name, { shop_id: 42 }, { kind: 'merchant', merchant_id: m.id, auth: 'api_key', email_confirmed: true }],
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
