import { randomUUID } from 'node:crypto';
import { subjects, type WebhookDelivery } from '@pl/contracts';
import { forbidden, notFound } from '@pl/errors';
import { expectError } from '../../../tests/support/http';
import { sampleLink, startHarness, type Harness } from './harness';

/** The session's delivery log (`/api/v1/webhook-deliveries`) and the session's read of one link (route 6). */
let h: Harness;
let m: Awaited<ReturnType<Harness['merchant']>>;
let auth: Record<string, string>;
beforeAll(async () => {
  h = await startHarness();
  // Sign-ins are throttled per address: one session serves the file.
  m = await h.merchant(false);
  const res = await h.request('POST', '/api/v1/auth/login', { body: { email: m.email, password: m.password } });
  expect(res.status).toBe(200);
  auth = { Authorization: `Bearer ${res.body.session_token as string}` };
});
afterAll(() => h.stop());
beforeEach(() => h.reset());

const delivery = (over: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id: randomUUID(),
  webhook_id: `msg_${randomUUID()}`,
  payment_link_id: randomUUID(),
  shop_id: 3,
  event: 'payment.succeeded',
  status: 'succeeded',
  attempts: [],
  attempts_omitted: 0,
  livemode: true,
  ...over,
});

const sessionIdentity = () => ({ kind: 'merchant', merchant_id: m.id, auth: 'session', mode: 'live', email_confirmed: false });

describe('GET /api/v1/webhook-deliveries', () => {
  it('lists with the filters mapped for the notifier, as the session merchant', async () => {
    const listed = { deliveries: [delivery()], has_more: false, next_cursor: null };
    h.on(subjects.deliveriesList.name, async () => listed);
    const link = randomUUID();
    const res = await h.request('GET', `/api/v1/webhook-deliveries?payment_link_id=${link.toUpperCase()}&shop_id=3&status=failed&limit=5&cursor=c1`, {
      headers: auth,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(listed);
    expect(h.calls.map((c) => [c.subject, c.payload, c.identity])).toEqual([
      [subjects.deliveriesList.name, { payment_link_id: link, shop_id: 3, status: 'failed', limit: 5, cursor: 'c1' }, sessionIdentity()],
    ]);
  });

  it('uses the defaults without a query', async () => {
    h.on(subjects.deliveriesList.name, async () => ({ deliveries: [], has_more: false, next_cursor: null }));
    expect((await h.request('GET', '/api/v1/webhook-deliveries', { headers: auth })).status).toBe(200);
    expect(h.calls[0]?.payload).toEqual({ payment_link_id: null, shop_id: null, status: null, limit: 20, cursor: null });
  });

  it('answers 400 naming every bad filter, without asking the notifier', async () => {
    const res = await h.request('GET', '/api/v1/webhook-deliveries?payment_link_id=nope&shop_id=0&status=lost&limit=1000&x=1', { headers: auth });
    expectError(res, 400, 'common.err.validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['limit', 'payment_link_id', 'shop_id', 'status', 'x']);
    expect(h.calls).toEqual([]);
  });

  it("passes the notifier's 403 for another merchant's shop on", async () => {
    h.on(subjects.deliveriesList.name, async () => {
      throw forbidden('Shop belongs to another merchant');
    });
    expectError(await h.request('GET', '/api/v1/webhook-deliveries?shop_id=9', { headers: auth }), 403, 'common.err.forbidden');
  });
});

describe('POST /api/v1/webhook-deliveries/{id}/resend', () => {
  it('answers 202 with the rescheduled delivery, with or without an empty body', async () => {
    const id = randomUUID();
    h.on(subjects.deliveriesResend.name, async () => delivery({ id, status: 'pending' }));
    for (const body of [{}, undefined]) {
      const res = await h.request('POST', `/api/v1/webhook-deliveries/${id.toUpperCase()}/resend`, { headers: auth, ...(body ? { body } : {}) });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ id, status: 'pending' });
    }
    expect(h.calls.map((c) => [c.subject, c.payload, c.identity])).toEqual(
      Array(2).fill([subjects.deliveriesResend.name, { id }, sessionIdentity()]),
    );
  });

  it('answers 400 for a non-empty body, 404 for an id that is not a UUID, and passes 403/404 on', async () => {
    const bad = await h.request('POST', `/api/v1/webhook-deliveries/${randomUUID()}/resend`, { headers: auth, body: { force: true } });
    expectError(bad, 400, 'common.err.validation_failed');
    expect(bad.body.error.details[0].field).toBe('force');
    expectError(await h.request('POST', '/api/v1/webhook-deliveries/42/resend', { headers: auth, body: {} }), 404, 'common.err.not_found');
    expect(h.calls).toEqual([]);
    h.on(subjects.deliveriesResend.name, async () => {
      throw forbidden();
    });
    expectError(await h.request('POST', `/api/v1/webhook-deliveries/${randomUUID()}/resend`, { headers: auth }), 403, 'common.err.forbidden');
    h.on(subjects.deliveriesResend.name, async () => {
      throw notFound('Webhook delivery not found');
    });
    expectError(await h.request('POST', `/api/v1/webhook-deliveries/${randomUUID()}/resend`, { headers: auth }), 404, 'common.err.not_found');
  });

  it('answers 405 for other methods', async () => {
    const list = await h.request('POST', '/api/v1/webhook-deliveries', { headers: auth, body: {} });
    expectError(list, 405, 'common.err.method_not_allowed');
    expect(list.headers.get('allow')).toBe('GET, HEAD');
    const resend = await h.request('GET', `/api/v1/webhook-deliveries/${randomUUID()}/resend`, { headers: auth });
    expectError(resend, 405, 'common.err.method_not_allowed');
    expect(resend.headers.get('allow')).toBe('POST');
  });

  it('answers 401 without a session, with an API key pair and with a cashier key', async () => {
    const cashier = { Authorization: `Bearer ${h.cashierKey(m.id, 3)}` };
    for (const headers of [{}, m.keys, cashier] as Record<string, string>[]) {
      expectError(await h.request('GET', '/api/v1/webhook-deliveries', { headers }), 401, 'common.err.unauthorized');
      expectError(
        await h.request('POST', `/api/v1/webhook-deliveries/${randomUUID()}/resend`, { headers, body: {} }),
        401,
        'common.err.unauthorized',
      );
    }
    expect(h.calls.filter((c) => c.subject !== subjects.shopsByCashierKey.name)).toEqual([]);
  });
});

describe('GET /api/v1/payment-links/{id}', () => {
  it('answers the link as route 6 does, asked as the session merchant', async () => {
    const id = randomUUID();
    const res = await h.request('GET', `/api/v1/payment-links/${id}`, { headers: auth });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(sampleLink({ id, expires_at: res.body.expires_at }));
    expect(h.calls.map((c) => [c.subject, c.payload, c.identity])).toEqual([[subjects.linksGet.name, { id }, sessionIdentity()]]);
  });

  it('answers 404 for an id that is not a UUID and passes 403 on', async () => {
    expectError(await h.request('GET', '/api/v1/payment-links/42', { headers: auth }), 404, 'common.err.not_found');
    expect(h.calls).toEqual([]);
    h.on(subjects.linksGet.name, async () => {
      throw forbidden();
    });
    expectError(await h.request('GET', `/api/v1/payment-links/${randomUUID()}`, { headers: auth }), 403, 'common.err.forbidden');
  });

  it('answers 401 for an API key pair and a cashier key, 405 for other methods', async () => {
    const id = randomUUID();
    for (const headers of [{}, m.keys, { Authorization: `Bearer ${h.cashierKey(m.id, 3)}` }] as Record<string, string>[]) {
      expectError(await h.request('GET', `/api/v1/payment-links/${id}`, { headers }), 401, 'common.err.unauthorized');
    }
    const del = await h.request('DELETE', `/api/v1/payment-links/${id}`, { headers: auth });
    expectError(del, 405, 'common.err.method_not_allowed');
    expect(del.headers.get('allow')).toBe('GET, HEAD');
  });
});
