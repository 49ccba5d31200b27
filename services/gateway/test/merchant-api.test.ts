import { randomUUID } from 'node:crypto';
import { subjects } from '@pl/contracts';
import { linkNotPending, shopNotApproved } from '@pl/errors';
import { startHarness, type Harness, type Reply } from './harness';

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
  expect(typeof res.body.error.message).toBe('string');
  expect(res.text).not.toMatch(/\n\s+at /);
  expect(res.headers.get('x-request-id')).toBeTruthy();
};

describe('account API key authentication', () => {
  it('answers 401 without keys, with a wrong secret and with a malformed key', async () => {
    const body = { shop_id: 1, amount: '10.00' };
    expectError(await h.request('POST', '/merchant/v1/payment-links', { body }), 401, 'common.err.unauthorized');
    expectError(
      await h.request('POST', '/merchant/v1/payment-links', { body, headers: { ...keys, 'X-API-Secret': 'sk_live_wrong' } }),
      401,
      'common.err.unauthorized',
    );
    expectError(
      await h.request('GET', '/merchant/v1/payment-links', { headers: { 'X-API-Key': 'nope', 'X-API-Secret': 'x' } }),
      401,
      'common.err.unauthorized',
    );
    expect(h.calls).toHaveLength(0);
  });

  it('checks credentials before the media type', async () => {
    const res = await h.request('POST', '/merchant/v1/payment-links', { body: 'x', headers: { 'content-type': 'text/plain' } });
    expectError(res, 401, 'common.err.unauthorized');
  });
});

describe('POST /merchant/v1/payment-links', () => {
  it('forwards the command with defaults, the merchant identity and the request id, and answers 201', async () => {
    const res = await h.request('POST', '/merchant/v1/payment-links', {
      headers: { ...keys, 'X-Request-Id': 'req-create-1' },
      body: '{"shop_id": 7, "amount": 10.1}',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe('req-create-1');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.shop_id).toBe(7);
    expect(h.calls).toEqual([
      {
        subject: subjects.linksCreate.name,
        payload: { shop_id: 7, amount_kopecks: 1010, order_id: null, description: null, expires_in_minutes: 1440, return_url: null },
        identity: { kind: 'merchant', merchant_id: merchantId, auth: 'api_key', mode: 'live', email_confirmed: true },
        requestId: 'req-create-1',
      },
    ]);
  });

  it('refuses a body that is not JSON by media type with 415', async () => {
    const res = await h.request('POST', '/merchant/v1/payment-links', { headers: { ...keys, 'content-type': 'text/plain' }, body: '{}' });
    expectError(res, 415, 'common.err.unsupported_media_type');
  });

  it('accepts a charset parameter on the JSON media type', async () => {
    const res = await h.request('POST', '/merchant/v1/payment-links', {
      headers: { ...keys, 'content-type': 'application/json; charset=utf-8' },
      body: { shop_id: 1, amount: '1' },
    });
    expect(res.status).toBe(201);
  });

  it('refuses a body over 64 KiB with 413', async () => {
    const res = await h.request('POST', '/merchant/v1/payment-links', {
      headers: keys,
      body: { shop_id: 1, amount: '1', description: 'x'.repeat(70 * 1024) },
    });
    expectError(res, 413, 'common.err.payload_too_large');
  });

  it('refuses malformed JSON and duplicate keys with 400 invalid_json', async () => {
    expectError(await h.request('POST', '/merchant/v1/payment-links', { headers: keys, body: '{"shop_id": 1,' }), 400, 'common.err.invalid_json');
    expectError(
      await h.request('POST', '/merchant/v1/payment-links', { headers: keys, body: '{"amount":1,"amount":2}' }),
      400,
      'common.err.invalid_json',
    );
    expectError(await h.request('POST', '/merchant/v1/payment-links', { headers: keys, body: '' }), 400, 'common.err.invalid_json');
  });

  it.each([
    ['a missing shop_id', '{"amount": "10.00"}', 'shop_id'],
    ['an amount with three decimals', '{"shop_id": 1, "amount": 10.005}', 'amount'],
    ['an amount in exponent form', '{"shop_id": 1, "amount": 1e2}', 'amount'],
    ['a zero amount', '{"shop_id": 1, "amount": "0"}', 'amount'],
    ['a body that is an array', '[]', ''],
  ])('refuses %s with 400 validation_failed naming the field', async (_case, body, field) => {
    const res = await h.request('POST', '/merchant/v1/payment-links', { headers: keys, body });
    expectError(res, 400, 'common.err.validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(h.calls).toHaveLength(0);
  });

  it('names unknown fields', async () => {
    const res = await h.request('POST', '/merchant/v1/payment-links', { headers: keys, body: { shop_id: 1, amount: '1', amout: 1 } });
    expectError(res, 400, 'common.err.validation_failed');
    expect(res.body.error.message).toContain('amout');
    expect(res.body.error.details).toEqual([{ field: 'amout', code: 'unrecognized_keys', message: 'is not a known field' }]);
  });

  it('maps domain errors from the links service to their statuses', async () => {
    h.on(subjects.linksCreate.name, async () => {
      throw shopNotApproved();
    });
    expectError(
      await h.request('POST', '/merchant/v1/payment-links', { headers: keys, body: { shop_id: 1, amount: '1' } }),
      422,
      'shop.err.not_approved',
    );
  });

  it('answers 500 with a generic message and a log id when links fails unexpectedly', async () => {
    h.on(subjects.linksCreate.name, async () => {
      throw new Error('database exploded: secret detail');
    });
    const res = await h.request('POST', '/merchant/v1/payment-links', { headers: keys, body: { shop_id: 1, amount: '1' } });
    expectError(res, 500, 'common.err.internal');
    expect(res.body.error.message).toMatch(/^Internal error \(log id [0-9a-f-]{36}\)$/);
    expect(res.text).not.toContain('exploded');
  });
});

describe('GET and cancel by id', () => {
  it('forwards a UUID id and returns the link', async () => {
    const id = randomUUID();
    const res = await h.request('GET', `/merchant/v1/payment-links/${id}`, { headers: keys });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(id);
    expect(h.calls[0]).toMatchObject({ subject: subjects.linksGet.name, payload: { id } });
  });

  it('answers 404 for an id that is not a UUID, after authentication', async () => {
    expectError(await h.request('GET', '/merchant/v1/payment-links/not-a-uuid', { headers: keys }), 404, 'common.err.not_found');
    expectError(await h.request('GET', '/merchant/v1/payment-links/not-a-uuid'), 401, 'common.err.unauthorized');
    expectError(await h.request('GET', '/merchant/v1/payment-links/%E0%A4%A', { headers: keys }), 404, 'common.err.not_found');
    expect(h.calls).toHaveLength(0);
  });

  it('cancels with an empty JSON object or with no body at all', async () => {
    const id = randomUUID();
    expect((await h.request('POST', `/merchant/v1/payment-links/${id}/cancel`, { headers: keys, body: {} })).status).toBe(200);
    expect((await h.request('POST', `/merchant/v1/payment-links/${id}/cancel`, { headers: keys })).status).toBe(200);
    expect(h.calls.map((c) => c.subject)).toEqual([subjects.linksCancel.name, subjects.linksCancel.name]);
  });

  it.each([
    ['application/json', ''],
    ['application/json; charset=utf-8', ''],
    ['text/plain', ''],
    ['application/x-www-form-urlencoded', ''],
    ['not a media type', ''],
  ])('cancels with Content-Type %j and an empty body', async (contentType, body) => {
    const res = await h.request('POST', `/merchant/v1/payment-links/${randomUUID()}/cancel`, {
      headers: { ...keys, 'Content-Type': contentType },
      body,
    });
    expect(res.status).toBe(200);
    expect(h.calls.map((c) => c.subject)).toEqual([subjects.linksCancel.name]);
  });

  it('cancels with a chunked application/json body that turns out empty', async () => {
    const empty = new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
    const res = await fetch(`${h.baseUrl}/merchant/v1/payment-links/${randomUUID()}/cancel`, {
      method: 'POST',
      headers: { ...keys, 'Content-Type': 'application/json' },
      body: empty,
      duplex: 'half',
    });
    expect(res.status).toBe(200);
  });

  it('still refuses a cancel body that is there but not JSON', async () => {
    const res = await h.request('POST', `/merchant/v1/payment-links/${randomUUID()}/cancel`, {
      headers: { ...keys, 'Content-Type': 'text/plain' },
      body: 'cancel it',
    });
    expectError(res, 415, 'common.err.unsupported_media_type');
    expectError(
      await h.request('POST', `/merchant/v1/payment-links/${randomUUID()}/cancel`, {
        headers: { ...keys, 'Content-Type': 'application/json' },
        body: '{',
      }),
      400,
      'common.err.invalid_json',
    );
    expect(h.calls).toHaveLength(0);
  });

  it('refuses a cancel body with fields', async () => {
    const res = await h.request('POST', `/merchant/v1/payment-links/${randomUUID()}/cancel`, { headers: keys, body: { reason: 'x' } });
    expectError(res, 400, 'common.err.validation_failed');
  });

  it('maps a cancel of a link that is not pending to 409', async () => {
    h.on(subjects.linksCancel.name, async () => {
      throw linkNotPending('paid');
    });
    const res = await h.request('POST', `/merchant/v1/payment-links/${randomUUID()}/cancel`, { headers: keys, body: {} });
    expectError(res, 409, 'payment_link.err.not_pending');
  });
});

describe('GET /merchant/v1/payment-links', () => {
  it('forwards the list query with defaults', async () => {
    const res = await h.request('GET', '/merchant/v1/payment-links?status=paid&limit=5', { headers: keys });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ payment_links: [], payments: [], has_more: false, next_cursor: null });
    expect(h.calls[0]?.payload).toEqual({ limit: 5, cursor: null, status: 'paid', shop_id: null, order_id: null });
  });

  it.each(['limit=0', 'limit=101', 'status=done', 'page=2', 'limit=1&limit=2'])('refuses ?%s with 400', async (q) => {
    expectError(await h.request('GET', `/merchant/v1/payment-links?${q}`, { headers: keys }), 400, 'common.err.validation_failed');
  });
});

describe('routing', () => {
  it('answers 404 for an unknown route and 405 with Allow for a wrong method', async () => {
    expectError(await h.request('GET', '/nope'), 404, 'common.err.not_found');
    const res = await h.request('DELETE', '/merchant/v1/payment-links', { headers: keys });
    expectError(res, 405, 'common.err.method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, POST, HEAD');
    const cancel = await h.request('GET', `/merchant/v1/payment-links/${randomUUID()}/cancel`);
    expectError(cancel, 405, 'common.err.method_not_allowed');
    expect(cancel.headers.get('allow')).toBe('POST');
  });

  it('replaces an unacceptable X-Request-Id with a fresh one and sets security headers', async () => {
    const res = await h.request('GET', '/nope', { headers: { 'X-Request-Id': 'x'.repeat(200) } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves /healthz and /readyz on the ops port', async () => {
    expect((await fetch(`http://127.0.0.1:${h.opsPort}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${h.opsPort}/readyz`)).status).toBe(200);
  });
});
