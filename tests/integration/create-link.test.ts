import { expectError } from '../support/http';
import { startSystem, type TestSystem } from '../support/system';

let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem();
});
afterAll(() => sys?.stop());

const MOSCOW_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?\+03:00$/;
const LINK_FIELDS = [
  'id',
  'shop_id',
  'order_id',
  'description',
  'return_url',
  'currency',
  'amount',
  'fee_bps',
  'fee_percent_bp',
  'fee_payer',
  'payer_amount',
  'merchant_credit',
  'platform_revenue',
  'status',
  'failure_reason',
  'amount_refunded',
  'gateway_provider',
  'gateway_payment_id',
  'to_currency',
  'network',
  'deposit_address',
  'payer_currency',
  'payer_crypto_amount',
  'qr',
  'checkout_url',
  'expires_at',
  'paid_at',
  'created_at',
  'updated_at',
  'livemode',
  'pay_url',
  'paymentUrl',
];

const listCount = async (keys: Record<string, string>): Promise<number> =>
  (await sys.http.get('/merchant/v1/payment-links?limit=100', { headers: keys })).body.payment_links.length;

describe('route 1: POST /merchant/v1/payment-links with account API keys', () => {
  it('creates a pending link carrying every field of the resource table', async () => {
    const { merchant, shop } = await sys.merchantWithShop({ cryptoBps: 250 });
    const before = Date.now();
    const res = await sys.http.post(
      '/merchant/v1/payment-links',
      { shop_id: shop.id, amount: 1500.5, order_id: 'order-1', description: 'Tea' },
      { headers: merchant.keys },
    );
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...LINK_FIELDS].sort());
    expect(res.body).toMatchObject({
      shop_id: shop.id,
      order_id: 'order-1',
      description: 'Tea',
      currency: 'RUB',
      amount: '1500.50',
      fee_bps: 250,
      fee_percent_bp: 250,
      fee_payer: 'merchant',
      payer_amount: '1500.50',
      merchant_credit: '1462.99',
      platform_revenue: '37.51',
      status: 'pending',
      gateway_provider: null,
      gateway_payment_id: null,
      to_currency: null,
      network: null,
      deposit_address: null,
      payer_currency: null,
      payer_crypto_amount: null,
      qr: null,
      paid_at: null,
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.checkout_url).toBe(`http://localhost:8080/p/${res.body.id}`);
    expect(res.body.pay_url).toBe(res.body.checkout_url);
    expect(res.body.paymentUrl).toBe(res.body.checkout_url);
    for (const f of ['created_at', 'updated_at', 'expires_at']) expect(res.body[f]).toMatch(MOSCOW_DATE);
    const expiresIn = Date.parse(res.body.expires_at) - before;
    expect(expiresIn).toBeGreaterThan(1439 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(1440 * 60_000 + 5_000);
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it.each([
    ['merchant', '1000.00', '990.00', '10.00'],
    ['client', '1010.00', '1000.00', '10.00'],
    ['split', '1005.00', '995.00', '10.00'],
  ] as const)('computes the three amounts for fee_payer=%s', async (feePayer, payer, credit, revenue) => {
    const { merchant, shop } = await sys.merchantWithShop({ feePayer, cryptoBps: 100 });
    const res = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '1000' }, { headers: merchant.keys });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ fee_payer: feePayer, payer_amount: payer, merchant_credit: credit, platform_revenue: revenue });
  });

  it('rounds a split fee with the odd kopeck on the buyer side', async () => {
    const { merchant, shop } = await sys.merchantWithShop({ feePayer: 'split', cryptoBps: 100 });
    const res = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '3.00' }, { headers: merchant.keys });
    expect(res.body).toMatchObject({ payer_amount: '3.02', merchant_credit: '2.99', platform_revenue: '0.03' });
  });

  it('derives expires_at from expires_in_minutes', async () => {
    const { merchant, shop } = await sys.merchantWithShop();
    const res = await sys.http.post(
      '/merchant/v1/payment-links',
      { shop_id: shop.id, amount: 10, expires_in_minutes: 5 },
      { headers: merchant.keys },
    );
    expect(res.status).toBe(201);
    const lifetime = Date.parse(res.body.expires_at) - Date.parse(res.body.created_at);
    expect(lifetime).toBeGreaterThanOrEqual(5 * 60_000 - 1000);
    expect(lifetime).toBeLessThanOrEqual(5 * 60_000 + 1000);
  });

  it('accepts currency RUB and null order_id and description', async () => {
    const { merchant, shop } = await sys.merchantWithShop();
    const res = await sys.http.post(
      '/merchant/v1/payment-links',
      { shop_id: shop.id, amount: '0.01', currency: 'RUB', order_id: null, description: null },
      { headers: merchant.keys },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ amount: '0.01', order_id: null, description: null });
  });

  it("answers 404 for an unknown shop and 403 for another merchant's shop", async () => {
    const { merchant } = await sys.merchantWithShop();
    const other = await sys.merchantWithShop();
    expectError(
      await sys.http.post('/merchant/v1/payment-links', { shop_id: 999999999, amount: 10 }, { headers: merchant.keys }),
      404,
      'common.err.not_found',
    );
    expectError(
      await sys.http.post('/merchant/v1/payment-links', { shop_id: other.shop.id, amount: 10 }, { headers: merchant.keys }),
      403,
      'common.err.forbidden',
    );
  });

  it.each(['pending', 'rejected', 'blocked'] as const)('answers 422 shop.err.not_approved for a %s shop', async (status) => {
    const { merchant, shop } = await sys.merchantWithShop({ status });
    expectError(
      await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 10 }, { headers: merchant.keys }),
      422,
      'shop.err.not_approved',
    );
  });

  it('lets an account with an unconfirmed email create links with API keys', async () => {
    const { merchant, shop } = await sys.merchantWithShop({ emailConfirmed: false });
    const res = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 10 }, { headers: merchant.keys });
    expect(res.status).toBe(201);
  });
});

describe('bad input on create', () => {
  let keys: Record<string, string>;
  let shopId: number;
  beforeAll(async () => {
    const { merchant, shop } = await sys.merchantWithShop();
    keys = merchant.keys;
    shopId = shop.id;
  });

  const rawCreate = (body: string, contentType = 'application/json') =>
    sys.http.call('POST', '/merchant/v1/payment-links', { body, headers: keys, contentType });

  it.each([
    ['amount 0', '{"shop_id":SHOP,"amount":0}'],
    ['amount -1', '{"shop_id":SHOP,"amount":-1}'],
    ['amount 10.005', '{"shop_id":SHOP,"amount":10.005}'],
    ['amount "1e2"', '{"shop_id":SHOP,"amount":"1e2"}'],
    ['amount 1e2', '{"shop_id":SHOP,"amount":1e2}'],
    ['amount "  5"', '{"shop_id":SHOP,"amount":"  5"}'],
    ['amount 1e400', '{"shop_id":SHOP,"amount":1e400}'],
    ['amount 100000000', '{"shop_id":SHOP,"amount":100000000}'],
    ['amount as boolean', '{"shop_id":SHOP,"amount":true}'],
    ['missing amount', '{"shop_id":SHOP}'],
    ['missing shop_id', '{"amount":10}'],
    ['shop_id as string', '{"shop_id":"SHOP","amount":10}'],
    ['unknown field', '{"shop_id":SHOP,"amount":10,"colour":"red"}'],
    ['currency USD', '{"shop_id":SHOP,"amount":10,"currency":"USD"}'],
    ['expires_in_minutes 0', '{"shop_id":SHOP,"amount":10,"expires_in_minutes":0}'],
    ['expires_in_minutes 43201', '{"shop_id":SHOP,"amount":10,"expires_in_minutes":43201}'],
    ['expires_in_minutes 1.5', '{"shop_id":SHOP,"amount":10,"expires_in_minutes":1.5}'],
    ['order_id of 129 characters', `{"shop_id":SHOP,"amount":10,"order_id":"${'x'.repeat(129)}"}`],
    ['description of 1025 characters', `{"shop_id":SHOP,"amount":10,"description":"${'я'.repeat(1025)}"}`],
    ['an array body', '[]'],
    ['a string body', '"hello"'],
  ])('answers 400 validation_failed for %s and writes nothing', async (_name, body) => {
    const before = await listCount(keys);
    const res = await rawCreate(body.replace(/SHOP/g, String(shopId)));
    expectError(res, 400, 'common.err.validation_failed');
    expect(await listCount(keys)).toBe(before);
  });

  it('names the unknown field in the validation error', async () => {
    const res = await rawCreate(`{"shop_id":${shopId},"amount":10,"colour":"red"}`);
    expect(JSON.stringify(res.body.error)).toContain('colour');
  });

  it.each([
    ['broken JSON', '{"shop_id":1,'],
    ['duplicate keys', '{"amount":1,"amount":2}'],
    ['an empty body', ''],
  ])('answers 400 invalid_json for %s', async (_name, body) => {
    expectError(await rawCreate(body), 400, 'common.err.invalid_json');
  });

  it('answers 413 payload_too_large for a 65 KiB body', async () => {
    const body = JSON.stringify({ shop_id: shopId, amount: 10, description: 'x'.repeat(65 * 1024) });
    expectError(await rawCreate(body), 413, 'common.err.payload_too_large');
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded'])('answers 415 for Content-Type %s', async (type) => {
    expectError(await rawCreate(`{"shop_id":${shopId},"amount":10}`, type), 415, 'common.err.unsupported_media_type');
  });

  it('accepts application/json with a charset', async () => {
    const res = await rawCreate(`{"shop_id":${shopId},"amount":10}`, 'application/json; charset=utf-8');
    expect(res.status).toBe(201);
  });

  it('checks authentication before the body', async () => {
    const res = await sys.http.call('POST', '/merchant/v1/payment-links', { body: '{broken', contentType: 'text/plain' });
    expectError(res, 401, 'common.err.unauthorized');
  });

  it('checks validation before existence: a bad amount for an unknown shop is 400', async () => {
    expectError(await rawCreate('{"shop_id":999999999,"amount":0}'), 400, 'common.err.validation_failed');
  });
});

describe('route 2: POST /api/v1/payment-links with a dashboard session', () => {
  it('creates a link with a session token as Bearer and as the sid cookie', async () => {
    const { merchant, shop } = await sys.merchantWithShop();
    const token = await sys.login(merchant);
    const viaBearer = await sys.http.post(
      '/api/v1/payment-links',
      { shop_id: shop.id, amount: '99.99' },
      { headers: { Authorization: `Bearer ${token}` } },
    );
    expect(viaBearer.status).toBe(201);
    expect(viaBearer.body).toMatchObject({ shop_id: shop.id, amount: '99.99', status: 'pending' });
    const viaCookie = await sys.http.post(
      '/api/v1/payment-links',
      { shop_id: shop.id, amount: 1 },
      {
        // A cookie-authenticated change must come from the dashboard's origin (CSRF).
        headers: { Cookie: `sid=${token}`, Origin: 'http://localhost:8080' },
      },
    );
    expect(viaCookie.status).toBe(201);
  });

  it('requires shop_id', async () => {
    const { merchant } = await sys.merchantWithShop();
    const token = await sys.login(merchant);
    const res = await sys.http.post('/api/v1/payment-links', { amount: 1 }, { headers: { Authorization: `Bearer ${token}` } });
    expectError(res, 400, 'common.err.validation_failed');
    expect(JSON.stringify(res.body.error)).toContain('shop_id');
  });

  it('answers 403 account.err.email_not_confirmed for an account whose email is not confirmed', async () => {
    const { merchant, shop } = await sys.merchantWithShop({ emailConfirmed: false });
    const token = await sys.login(merchant);
    const res = await sys.http.post('/api/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: { Authorization: `Bearer ${token}` } });
    expectError(res, 403, 'account.err.email_not_confirmed');
  });

  it('treats a Bearer svc_live_ value as a cashier key, taking the shop from the key', async () => {
    const { shop } = await sys.merchantWithShop();
    const res = await sys.http.post('/api/v1/payment-links', { amount: 5 }, { headers: { Authorization: `Bearer ${shop.cashierKey}` } });
    expect(res.status).toBe(201);
    expect(res.body.shop_id).toBe(shop.id);
  });
});

describe('route 3: POST /api/v1/merchant/payments with a cashier key', () => {
  it('takes the shop from the key', async () => {
    const { merchant, shop } = await sys.merchantWithShop({ feePayer: 'client', cryptoBps: 300 });
    const res = await sys.http.post(
      '/api/v1/merchant/payments',
      { amount: 200, order_id: 'c-1', description: 'At the till', expires_in_minutes: 30 },
      { headers: { Authorization: `Bearer ${shop.cashierKey}` } },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ shop_id: shop.id, amount: '200.00', payer_amount: '206.00', merchant_credit: '200.00', order_id: 'c-1' });
    const read = await sys.http.get(`/merchant/v1/payment-links/${res.body.id}`, { headers: merchant.keys });
    expect(read.status).toBe(200);
  });

  it("accepts the key's own shop_id and refuses another with 403", async () => {
    const { shop } = await sys.merchantWithShop();
    const auth = { Authorization: `Bearer ${shop.cashierKey}` };
    expect((await sys.http.post('/api/v1/merchant/payments', { shop_id: shop.id, amount: 1 }, { headers: auth })).status).toBe(201);
    expectError(
      await sys.http.post('/api/v1/merchant/payments', { shop_id: shop.id + 1000, amount: 1 }, { headers: auth }),
      403,
      'common.err.forbidden',
    );
  });

  it("answers 422 when the key's shop is not approved", async () => {
    const { shop } = await sys.merchantWithShop({ status: 'blocked' });
    expectError(
      await sys.http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: { Authorization: `Bearer ${shop.cashierKey}` } }),
      422,
      'shop.err.not_approved',
    );
  });

  it('refuses a session token or an unknown cashier key with 401', async () => {
    const { merchant } = await sys.merchantWithShop();
    const token = await sys.login(merchant);
    expectError(
      await sys.http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: { Authorization: `Bearer ${token}` } }),
      401,
      'common.err.unauthorized',
    );
    expectError(
      await sys.http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: { Authorization: 'Bearer svc_live_nope' } }),
      401,
      'common.err.unauthorized',
    );
  });
});
