import { expectError } from '../support/http';
import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
beforeAll(async () => {
  sys = await startSystem();
  ({ merchant, shop } = await sys.merchantWithShop());
});
afterAll(() => sys?.stop());

describe('routing and the error shape', () => {
  it('answers 404 common.err.not_found in the error shape for an unknown route', async () => {
    expectError(await sys.http.get('/merchant/v2/payment-links', { headers: merchant.keys }), 404, 'common.err.not_found');
    expectError(await sys.http.get('/nothing-here'), 404, 'common.err.not_found');
  });

  it('answers 405 common.err.method_not_allowed for a wrong method on a known route', async () => {
    const res = await sys.http.call('DELETE', '/merchant/v1/payment-links', { headers: merchant.keys });
    expectError(res, 405, 'common.err.method_not_allowed');
    expect(res.headers.get('allow')).toMatch(/GET/);
    expectError(await sys.http.call('PUT', '/api/v1/auth/login'), 405, 'common.err.method_not_allowed');
  });

  it('answers JSON on every response, errors included', async () => {
    for (const res of [await sys.http.get('/x'), await sys.http.get('/merchant/v1/payment-links')]) {
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });
});

describe('X-Request-Id', () => {
  it("echoes the caller's request id", async () => {
    const res = await sys.http.get('/merchant/v1/payment-links', { headers: { ...merchant.keys, 'X-Request-Id': 'req-abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('req-abc-123');
  });

  it('makes one up when the caller sent none or one of the wrong form, errors included', async () => {
    const none = await sys.http.get('/merchant/v1/payment-links');
    expect(none.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const bad = await sys.http.get('/merchant/v1/payment-links', { headers: { 'X-Request-Id': 'x'.repeat(300) } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('Idempotency-Key on the create routes', () => {
  const createWithKey = (key: string, body: unknown, headers: Record<string, string> = merchant.keys) =>
    sys.http.post('/merchant/v1/payment-links', body, { headers: { ...headers, 'Idempotency-Key': key } });

  it('returns the original response to a retry, marked Idempotent-Replayed, and creates one link', async () => {
    const body = { shop_id: shop.id, amount: '42.00', order_id: 'idem-1' };
    const first = await createWithKey('key-1', body);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retry = await createWithKey('key-1', { order_id: 'idem-1', amount: '42.00', shop_id: shop.id });
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const list = await sys.http.get('/merchant/v1/payment-links?order_id=idem-1', { headers: merchant.keys });
    expect(list.body.payment_links).toHaveLength(1);
  });

  it('answers 409 idempotency_conflict to the same key with a different body', async () => {
    await createWithKey('key-2', { shop_id: shop.id, amount: 1 });
    expectError(await createWithKey('key-2', { shop_id: shop.id, amount: 2 }), 409, 'common.err.idempotency_conflict');
  });

  it('runs concurrent requests with one key at most once', async () => {
    const body = { shop_id: shop.id, amount: 3, order_id: 'idem-race' };
    const results = await Promise.all(Array.from({ length: 5 }, () => createWithKey('key-race', body)));
    const created = new Set(results.filter((r) => r.status === 201).map((r) => r.body.id));
    expect(created.size).toBe(1);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 409, 'common.err.idempotency_conflict');
    const list = await sys.http.get('/merchant/v1/payment-links?order_id=idem-race', { headers: merchant.keys });
    expect(list.body.payment_links).toHaveLength(1);
  });

  it('scopes keys to the merchant', async () => {
    const other = await sys.merchantWithShop();
    const mine = await createWithKey('shared-key', { shop_id: shop.id, amount: 1 });
    const theirs = await createWithKey('shared-key', { shop_id: other.shop.id, amount: 1 }, other.merchant.keys);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('works on the session and cashier routes too', async () => {
    const token = await sys.login(merchant);
    const s1 = await sys.http.post(
      '/api/v1/payment-links',
      { shop_id: shop.id, amount: 7 },
      { headers: { Authorization: `Bearer ${token}`, 'Idempotency-Key': 's' } },
    );
    const s2 = await sys.http.post(
      '/api/v1/payment-links',
      { shop_id: shop.id, amount: 7 },
      { headers: { Authorization: `Bearer ${token}`, 'Idempotency-Key': 's' } },
    );
    expect(s2.body.id).toBe(s1.body.id);
    const c1 = await sys.http.post(
      '/api/v1/merchant/payments',
      { amount: 8 },
      { headers: { Authorization: `Bearer ${shop.cashierKey}`, 'Idempotency-Key': 'c' } },
    );
    const c2 = await sys.http.post(
      '/api/v1/merchant/payments',
      { amount: 8 },
      { headers: { Authorization: `Bearer ${shop.cashierKey}`, 'Idempotency-Key': 'c' } },
    );
    expect(c1.status).toBe(201);
    expect(c2.body.id).toBe(c1.body.id);
    expect(c2.headers.get('idempotent-replayed')).toBe('true');
  });

  it.each([
    ['an empty key', ''],
    ['a key of 256 characters', 'k'.repeat(256)],
    ['a key with a non-ASCII character', 'ключ'],
  ])('answers 400 validation_failed for %s', async (_label, key) => {
    const res = await sys.http.post(
      '/merchant/v1/payment-links',
      { shop_id: shop.id, amount: 1 },
      {
        headers: { ...merchant.keys, 'Idempotency-Key': encodeURIComponent(key) === key ? key : Buffer.from(key).toString('latin1') },
      },
    );
    expectError(res, 400, 'common.err.validation_failed');
  });
});
