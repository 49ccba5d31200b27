import { randomUUID } from 'node:crypto';
import { subjects, type PaymentLink, type WebhookDelivery } from '@pl/contracts';
import { AppError, forbidden, linkNotPending, notFound } from '@pl/errors';
import { DEV_PROVIDER_SANDBOX_SECRET } from '../src/config';
import { hmacSha256Hex } from '@pl/providers';
import { sampleLink, startHarness, type Harness, type Reply } from './harness';

let h: Harness;
let keys: Record<string, string>;
let merchantId: string;

beforeAll(async () => {
  h = await startHarness();
  const m = await h.merchant();
  keys = m.keys;
  merchantId = m.id;
});
afterAll(() => h.stop());
beforeEach(() => h.reset());

const expectError = (res: Reply, status: number, code: string): void => {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.text).not.toMatch(/\n\s+at /);
  expect(res.headers.get('x-request-id')).toBeTruthy();
};

/** A buyer view as links would send it, merchant-only fields included, to prove the gateway drops them. */
const buyerReply = (id: string, over: Partial<PaymentLink> = {}) => ({
  ...sampleLink({ id, order_id: 'order-secret', livemode: true, ...over }),
  shop_name: 'Shop',
  methods: { sbp: true, crypto_networks: ['USDT-TRC20'] },
  payment_progress: null,
});

const signedCallback = (body: string, signature = hmacSha256Hex(DEV_PROVIDER_SANDBOX_SECRET, Buffer.from(body))) =>
  h.request('POST', '/callbacks/v1/sandbox', { body, headers: { 'X-Provider-Signature': signature } });

const sampleDelivery = (over: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id: randomUUID(),
  webhook_id: 'evt_1',
  payment_link_id: randomUUID(),
  shop_id: 1,
  event: 'payment.succeeded',
  status: 'succeeded',
  attempts: [{ attempt: 1, at: '2026-11-22T12:00:00+03:00', status_code: 200, error: null, duration_ms: 12 }],
  attempts_omitted: 0,
  livemode: true,
  ...over,
});

describe('POST /p/{id}/select', () => {
  it('forwards the choice with the gateway service identity and answers the buyer view without merchant-only fields', async () => {
    const id = randomUUID();
    h.on(subjects.linksSelect.name, async () => buyerReply(id));
    const res = await h.request('POST', `/p/${id.toUpperCase()}/select`, {
      body: { method: 'crypto', network: 'USDT-TON' },
      headers: { 'X-Request-Id': 'sel-1' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ id, shop_name: 'Shop' });
    for (const field of ['merchant_credit', 'platform_revenue', 'fee_percent_bp', 'order_id']) expect(res.body).not.toHaveProperty(field);
    expect(h.calls).toEqual([
      {
        subject: subjects.linksSelect.name,
        payload: { id, method: 'crypto', network: 'USDT-TON' },
        identity: { kind: 'service', service: 'gateway' },
        requestId: 'sel-1',
      },
    ]);
  });

  it('sends SBP with a null network', async () => {
    const id = randomUUID();
    h.on(subjects.linksSelect.name, async () => buyerReply(id));
    expect((await h.request('POST', `/p/${id}/select`, { body: { method: 'sbp' } })).status).toBe(200);
    expect(h.calls[0]?.payload).toEqual({ id, method: 'sbp', network: null });
  });

  it('answers 400 for an unknown network, 415 without JSON and 404 for a non-UUID id, asking nobody', async () => {
    expectError(
      await h.request('POST', `/p/${randomUUID()}/select`, { body: { method: 'crypto', network: 'DOGE' } }),
      400,
      'common.err.validation_failed',
    );
    expectError(
      await h.request('POST', `/p/${randomUUID()}/select`, { body: 'method=sbp', headers: { 'content-type': 'text/plain' } }),
      415,
      'common.err.unsupported_media_type',
    );
    expectError(await h.request('POST', `/p/${randomUUID()}/select`), 415, 'common.err.unsupported_media_type');
    expectError(await h.request('POST', '/p/not-a-link/select', { body: { method: 'sbp' } }), 404, 'common.err.not_found');
    expect(h.calls).toHaveLength(0);
  });

  it('answers a page path it cannot decode with the HTML not-found page; its status and panel stay JSON', async () => {
    const page = await h.request('GET', '/p/%80?lang=en');
    expect({ status: page.status, type: page.headers.get('content-type') }).toEqual({ status: 404, type: 'text/html; charset=utf-8' });
    expect(page.text).toContain('<html lang="en"');
    expectError(await h.request('GET', '/p/%80/status'), 404, 'common.err.not_found');
    expectError(await h.request('GET', '/p/%E0%A4%A/panel'), 404, 'common.err.not_found');
    expect(h.calls).toHaveLength(0);
  });

  it('passes on 409 not_pending from links and answers 405 for other methods', async () => {
    h.on(subjects.linksSelect.name, async () => {
      throw linkNotPending('canceled');
    });
    expectError(await h.request('POST', `/p/${randomUUID()}/select`, { body: { method: 'sbp' } }), 409, 'payment_link.err.not_pending');
    const wrong = await h.request('GET', `/p/${randomUUID()}/select`);
    expectError(wrong, 405, 'common.err.method_not_allowed');
    expect(wrong.headers.get('allow')).toBe('POST');
  });
});

describe('POST /p/{id}/simulate', () => {
  it.each(['paid', 'failed'] as const)('forwards a %s verdict with the gateway service identity and answers the buyer view', async (status) => {
    const id = randomUUID();
    h.on(subjects.linksSimulate.name, async () =>
      buyerReply(id, { livemode: false, status, paid_at: status === 'paid' ? '2026-11-22T12:05:00+03:00' : null }),
    );
    const res = await h.request('POST', `/p/${id.toUpperCase()}/simulate`, { body: { status }, headers: { 'X-Request-Id': `sim-${status}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ id, status, livemode: false, shop_name: 'Shop' });
    for (const field of ['merchant_credit', 'platform_revenue', 'fee_percent_bp', 'order_id']) expect(res.body).not.toHaveProperty(field);
    expect(h.calls).toEqual([
      {
        subject: subjects.linksSimulate.name,
        payload: { id, status },
        identity: { kind: 'service', service: 'gateway' },
        requestId: `sim-${status}`,
      },
    ]);
  });

  it('answers 400 for any other body, 415 without JSON and 404 for a non-UUID id, asking nobody', async () => {
    for (const body of [{ status: 'refunded' }, { status: 'PAID' }, {}, { status: 'paid', amount: '10.00' }, ['paid'], 'paid']) {
      expectError(await h.request('POST', `/p/${randomUUID()}/simulate`, { body: JSON.stringify(body) }), 400, 'common.err.validation_failed');
    }
    expectError(await h.request('POST', `/p/${randomUUID()}/simulate`, { body: '{"status":' }), 400, 'common.err.invalid_json');
    expectError(
      await h.request('POST', `/p/${randomUUID()}/simulate`, {
        body: 'status=paid',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      415,
      'common.err.unsupported_media_type',
    );
    expectError(await h.request('POST', `/p/${randomUUID()}/simulate`), 415, 'common.err.unsupported_media_type');
    expectError(await h.request('POST', '/p/not-a-link/simulate', { body: { status: 'paid' } }), 404, 'common.err.not_found');
    expect(h.calls).toHaveLength(0);
  });

  it('passes on 404 for a live or unknown link and 409 for a test link that is not pending', async () => {
    h.on(subjects.linksSimulate.name, async () => {
      throw notFound('Payment link not found');
    });
    expectError(await h.request('POST', `/p/${randomUUID()}/simulate`, { body: { status: 'paid' } }), 404, 'common.err.not_found');
    h.on(subjects.linksSimulate.name, async () => {
      throw linkNotPending('paid');
    });
    expectError(await h.request('POST', `/p/${randomUUID()}/simulate`, { body: { status: 'failed' } }), 409, 'payment_link.err.not_pending');
    expect(h.calls.map((c) => c.subject)).toEqual([subjects.linksSimulate.name, subjects.linksSimulate.name]);
  });

  it('answers 405 for other methods', async () => {
    const wrong = await h.request('GET', `/p/${randomUUID()}/simulate`);
    expectError(wrong, 405, 'common.err.method_not_allowed');
    expect(wrong.headers.get('allow')).toBe('POST');
  });
});

describe('POST /callbacks/v1/{provider}', () => {
  const body = JSON.stringify({ gateway_payment_id: 'sbx_abc', status: 'paid' });

  it('settles a correctly signed callback through links with the gateway identity and answers received', async () => {
    const res = await signedCallback(body);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { received: true } });
    expect(h.calls).toEqual([
      {
        subject: subjects.linksSettle.name,
        payload: { provider: 'sandbox', gateway_payment_id: 'sbx_abc', order_id: null, status: 'paid', provider_status: 'paid' },
        identity: { kind: 'service', service: 'gateway' },
        requestId: expect.any(String),
      },
    ]);
  });

  it('answers 401 for a missing, wrong or other-body signature and never reaches links', async () => {
    expectError(await h.request('POST', '/callbacks/v1/sandbox', { body }), 401, 'common.err.unauthorized');
    expectError(await signedCallback(body, 'ab'.repeat(32)), 401, 'common.err.unauthorized');
    expectError(await signedCallback(body, hmacSha256Hex(DEV_PROVIDER_SANDBOX_SECRET, Buffer.from(`${body} `))), 401, 'common.err.unauthorized');
    expect(h.calls).toHaveLength(0);
  });

  it('checks the signature before the media type and the body shape', async () => {
    expectError(
      await h.request('POST', '/callbacks/v1/sandbox', { body: 'x', headers: { 'content-type': 'text/plain' } }),
      401,
      'common.err.unauthorized',
    );
    const sig = hmacSha256Hex(DEV_PROVIDER_SANDBOX_SECRET, Buffer.from('x'));
    expectError(
      await h.request('POST', '/callbacks/v1/sandbox', { body: 'x', headers: { 'content-type': 'text/plain', 'X-Provider-Signature': sig } }),
      415,
      'common.err.unsupported_media_type',
    );
    expectError(await signedCallback('{"gateway_payment_id":'), 400, 'common.err.invalid_json');
    expectError(await signedCallback('{"gateway_payment_id":"sbx_1","status":"refunded"}'), 400, 'common.err.validation_failed');
    expect(h.calls).toHaveLength(0);
  });

  it('answers 404 for an unknown provider, even with a signature', async () => {
    const sig = hmacSha256Hex(DEV_PROVIDER_SANDBOX_SECRET, Buffer.from(body));
    for (const p of ['stripe', '__proto__', 'constructor']) {
      expectError(await h.request('POST', `/callbacks/v1/${p}`, { body, headers: { 'X-Provider-Signature': sig } }), 404, 'common.err.not_found');
    }
    expect(h.calls).toHaveLength(0);
  });

  it('answers 200 received for a repeat that links refuses as not pending', async () => {
    h.on(subjects.linksSettle.name, async () => {
      throw linkNotPending('paid');
    });
    const res = await signedCallback(body);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { received: true } });
  });

  it('answers 200 for a payment the platform never made, counting it, and passes on 503 when links is down', async () => {
    h.on(subjects.linksSettle.name, async () => {
      throw notFound('Payment not found');
    });
    const unknown = await signedCallback(body);
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 200, body: { received: true } });
    const metrics = await (await fetch(`http://127.0.0.1:${h.opsPort}/metrics`)).text();
    expect(metrics).toMatch(/^provider_callbacks_unknown_total\{[^}]*provider="sandbox"[^}]*\} 1$/m);
    expect(metrics).toMatch(/^provider_callbacks_unknown_total\{[^}]*provider="heleket"[^}]*\} 0$/m);
    h.on(subjects.linksSettle.name, async () => {
      throw new AppError('unavailable', 'common.err.unavailable', 'db down');
    });
    const down = await signedCallback(body);
    expectError(down, 503, 'common.err.unavailable');
    expect(down.headers.get('retry-after')).toBe('1');
  });

  it('answers 413 for a body over 64 KiB and 405 for GET', async () => {
    const big = JSON.stringify({ gateway_payment_id: 'sbx_1', status: 'paid', pad: 'x'.repeat(70 * 1024) });
    expectError(await signedCallback(big), 413, 'common.err.payload_too_large');
    expectError(await h.request('GET', '/callbacks/v1/sandbox'), 405, 'common.err.method_not_allowed');
  });
});

describe('/merchant/v1/webhook-deliveries', () => {
  it('lists deliveries with the default limit and the merchant identity', async () => {
    const linkId = randomUUID();
    const delivery = sampleDelivery({ payment_link_id: linkId });
    h.on(subjects.deliveriesList.name, async () => ({ deliveries: [delivery], has_more: false, next_cursor: null }));
    const res = await h.request('GET', `/merchant/v1/webhook-deliveries?payment_link_id=${linkId}`, { headers: keys });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deliveries: [delivery], has_more: false, next_cursor: null });
    expect(h.calls).toEqual([
      {
        subject: subjects.deliveriesList.name,
        payload: { payment_link_id: linkId, shop_id: null, status: null, limit: 20, cursor: null },
        identity: { kind: 'merchant', merchant_id: merchantId, auth: 'api_key', email_confirmed: true, mode: 'live' },
        requestId: expect.any(String),
      },
    ]);
  });

  it('answers 401 without keys and 400 for a bad query, asking nobody', async () => {
    expectError(await h.request('GET', '/merchant/v1/webhook-deliveries'), 401, 'common.err.unauthorized');
    expectError(await h.request('GET', '/merchant/v1/webhook-deliveries?limit=500', { headers: keys }), 400, 'common.err.validation_failed');
    expectError(await h.request('GET', '/merchant/v1/webhook-deliveries?payment_link_id=x', { headers: keys }), 400, 'common.err.validation_failed');
    expect(h.calls).toHaveLength(0);
  });

  it('resends with no body or an empty object and answers 202 with the delivery', async () => {
    const delivery = sampleDelivery({ status: 'pending', attempts: [] });
    h.on(subjects.deliveriesResend.name, async () => delivery);
    const noBody = await h.request('POST', `/merchant/v1/webhook-deliveries/${delivery.id}/resend`, { headers: keys });
    expect({ status: noBody.status, body: noBody.body }).toEqual({ status: 202, body: delivery });
    const empty = await h.request('POST', `/merchant/v1/webhook-deliveries/${delivery.id}/resend`, { headers: keys, body: {} });
    expect(empty.status).toBe(202);
    // No body is no body, whatever the Content-Type says.
    const typedButEmpty = await h.request('POST', `/merchant/v1/webhook-deliveries/${delivery.id}/resend`, {
      headers: { ...keys, 'Content-Type': 'application/json' },
      body: '',
    });
    expect(typedButEmpty.status).toBe(202);
    expect(h.calls.map((c) => c.payload)).toEqual([{ id: delivery.id }, { id: delivery.id }, { id: delivery.id }]);
  });

  it('refuses a resend body with fields (400), a non-UUID id (404) and passes on 403 from the notifier', async () => {
    expectError(
      await h.request('POST', `/merchant/v1/webhook-deliveries/${randomUUID()}/resend`, { headers: keys, body: { force: true } }),
      400,
      'common.err.validation_failed',
    );
    expectError(await h.request('POST', '/merchant/v1/webhook-deliveries/42/resend', { headers: keys }), 404, 'common.err.not_found');
    expect(h.calls).toHaveLength(0);
    h.on(subjects.deliveriesResend.name, async () => {
      throw forbidden('Webhook delivery belongs to another merchant');
    });
    expectError(await h.request('POST', `/merchant/v1/webhook-deliveries/${randomUUID()}/resend`, { headers: keys }), 403, 'common.err.forbidden');
  });

  it('answers 405 for wrong methods and 404 for unknown sub-paths', async () => {
    expectError(await h.request('POST', '/merchant/v1/webhook-deliveries', { headers: keys, body: {} }), 405, 'common.err.method_not_allowed');
    expectError(
      await h.request('GET', `/merchant/v1/webhook-deliveries/${randomUUID()}/resend`, { headers: keys }),
      405,
      'common.err.method_not_allowed',
    );
    expectError(await h.request('GET', `/merchant/v1/webhook-deliveries/${randomUUID()}`, { headers: keys }), 404, 'common.err.not_found');
  });
});
