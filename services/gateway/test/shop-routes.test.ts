import { subjects } from '@pl/contracts';
import { forbidden, noWebhookUrl, notFound } from '@pl/errors';
import { randomUUID } from 'node:crypto';
import { expectError } from '../../../tests/support/http';
import { startHarness, type Harness } from './harness';
import { fieldsNamed, shop, shopFixtures } from './shop-routes.fixtures';

/** The session's shop routes: what each takes and answers. Credentials, secrets, CSRF and audit: shop-routes-access. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());
beforeEach(() => h.reset());
const { signedIn, callsTo, scriptShops } = shopFixtures(() => h);

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
        identity: { kind: 'merchant', merchant_id: m.id, auth: 'session', mode: 'live', email_confirmed: false },
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

  it("passes the shop's event subscription on; an unknown or repeated type is 400 without asking shops", async () => {
    scriptShops();
    const m = await signedIn();
    const events = ['payment.succeeded', 'refund.failed', 'payment_link.expired'];
    const res = await h.request('PATCH', '/api/v1/shops/42', { headers: m.auth, body: { webhook_events: events } });
    expect(res.status).toBe(200);
    expect(res.body.webhook_events).toEqual(events);
    expect(callsTo(subjects.shopsUpdate).map((c) => c.payload)).toEqual([{ shop_id: 42, webhook_events: events }]);
    for (const bad of [['payment.refunded'], ['refund.failed', 'refund.failed'], 'payment.succeeded', ['webhook.test']]) {
      const refused = await h.request('PATCH', '/api/v1/shops/42', { headers: m.auth, body: { webhook_events: bad } });
      expectError(refused, 400, 'common.err.validation_failed');
      expect(fieldsNamed(refused)[0]).toMatch(/^webhook_events/);
    }
    expect(callsTo(subjects.shopsUpdate)).toHaveLength(1);
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
    expect(res.body).toEqual({ cashier_key: expect.stringMatching(/^svc_live_/), mode: 'live' });
    expect(callsTo(subjects.shopsReissueCashierKey)[0]?.payload).toEqual({ shop_id: 42, mode: 'live' });
  });

  it("reissues the key of the body's mode, whatever mode the session acts in", async () => {
    scriptShops();
    const m = await signedIn();
    const test = await h.request('POST', '/api/v1/shops/42/cashier-key/reissue', { headers: m.auth, body: { mode: 'test' } });
    expect(test.body).toEqual({ cashier_key: expect.stringMatching(/^svc_test_/), mode: 'test' });
    const live = await h.request('POST', '/api/v1/shops/42/cashier-key/reissue', { headers: { ...m.auth, 'Pl-Mode': 'test' }, body: {} });
    expect(live.body).toEqual({ cashier_key: expect.stringMatching(/^svc_live_/), mode: 'live' });
    expect(callsTo(subjects.shopsReissueCashierKey).map((c) => c.payload)).toEqual([
      { shop_id: 42, mode: 'test' },
      { shop_id: 42, mode: 'live' },
    ]);
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
