import { expectError } from '../support/http';
import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem();
});
afterAll(() => sys?.stop());

const create = async (merchant: TestMerchant, shop: TestShop, extra: Record<string, unknown> = {}) => {
  const res = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 100, ...extra }, { headers: merchant.keys });
  expect(res.status).toBe(201);
  return res.body;
};

describe('route 6: GET /merchant/v1/payment-links/{id}', () => {
  it('returns the same object as creation', async () => {
    const { merchant, shop } = await sys.merchantWithShop();
    const created = await create(merchant, shop, { order_id: 'o-6' });
    const res = await sys.http.get(`/merchant/v1/payment-links/${created.id}`, { headers: merchant.keys });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
  });

  it('answers 404 for an unknown id and for an id that is not a UUID', async () => {
    const { merchant } = await sys.merchantWithShop();
    expectError(
      await sys.http.get('/merchant/v1/payment-links/00000000-0000-4000-8000-000000000000', { headers: merchant.keys }),
      404,
      'common.err.not_found',
    );
    expectError(await sys.http.get('/merchant/v1/payment-links/not-a-uuid', { headers: merchant.keys }), 404, 'common.err.not_found');
  });

  it('answers 403 for a link of another merchant', async () => {
    const a = await sys.merchantWithShop();
    const b = await sys.merchantWithShop();
    const link = await create(a.merchant, a.shop);
    expectError(await sys.http.get(`/merchant/v1/payment-links/${link.id}`, { headers: b.merchant.keys }), 403, 'common.err.forbidden');
  });
});

describe('routes 4 and 5: cancel', () => {
  it('cancels a pending link with API keys and returns it canceled', async () => {
    const { merchant, shop } = await sys.merchantWithShop();
    const link = await create(merchant, shop);
    const res = await sys.http.post(`/merchant/v1/payment-links/${link.id}/cancel`, {}, { headers: merchant.keys });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: link.id, status: 'canceled', fee_percent_bp: 100 });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(link.updated_at));
  });

  it('cancels with a dashboard session', async () => {
    const { merchant, shop } = await sys.merchantWithShop();
    const link = await create(merchant, shop);
    const token = await sys.login(merchant);
    const res = await sys.http.post(`/api/v1/payment-links/${link.id}/cancel`, {}, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('canceled');
  });

  it('answers 409 payment_link.err.not_pending to a second cancel and leaves the link canceled', async () => {
    const { merchant, shop } = await sys.merchantWithShop();
    const link = await create(merchant, shop);
    await sys.http.post(`/merchant/v1/payment-links/${link.id}/cancel`, {}, { headers: merchant.keys });
    expectError(
      await sys.http.post(`/merchant/v1/payment-links/${link.id}/cancel`, {}, { headers: merchant.keys }),
      409,
      'payment_link.err.not_pending',
    );
    expect((await sys.http.get(`/merchant/v1/payment-links/${link.id}`, { headers: merchant.keys })).body.status).toBe('canceled');
  });

  it('lets exactly one of many concurrent cancels win', async () => {
    const { merchant, shop } = await sys.merchantWithShop();
    const link = await create(merchant, shop);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => sys.http.post(`/merchant/v1/payment-links/${link.id}/cancel`, {}, { headers: merchant.keys })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('payment_link.err.not_pending');
  });

  it("answers 404 for an unknown or malformed id, 403 for another merchant's link", async () => {
    const a = await sys.merchantWithShop();
    const b = await sys.merchantWithShop();
    const link = await create(a.merchant, a.shop);
    expectError(
      await sys.http.post('/merchant/v1/payment-links/00000000-0000-4000-8000-000000000000/cancel', {}, { headers: a.merchant.keys }),
      404,
      'common.err.not_found',
    );
    expectError(await sys.http.post('/merchant/v1/payment-links/123/cancel', {}, { headers: a.merchant.keys }), 404, 'common.err.not_found');
    expectError(await sys.http.post(`/merchant/v1/payment-links/${link.id}/cancel`, {}, { headers: b.merchant.keys }), 403, 'common.err.forbidden');
    expect((await sys.http.get(`/merchant/v1/payment-links/${link.id}`, { headers: a.merchant.keys })).body.status).toBe('pending');
  });

  it('takes an empty JSON object and refuses anything else in the body', async () => {
    const { merchant, shop } = await sys.merchantWithShop();
    const link = await create(merchant, shop);
    expectError(
      await sys.http.post(`/merchant/v1/payment-links/${link.id}/cancel`, { reason: 'x' }, { headers: merchant.keys }),
      400,
      'common.err.validation_failed',
    );
    expectError(
      await sys.http.call('POST', `/merchant/v1/payment-links/${link.id}/cancel`, { body: '{', headers: merchant.keys }),
      400,
      'common.err.invalid_json',
    );
    expect((await sys.http.get(`/merchant/v1/payment-links/${link.id}`, { headers: merchant.keys })).body.status).toBe('pending');
  });
});

describe('routes 7 and 8: list', () => {
  let merchant: TestMerchant;
  let shopA: TestShop;
  let shopB: TestShop;
  const ids: string[] = [];
  beforeAll(async () => {
    ({ merchant, shop: shopA } = await sys.merchantWithShop());
    shopB = await sys.shop(merchant.id);
    for (let i = 0; i < 7; i++) ids.push((await create(merchant, i % 2 ? shopB : shopA, { order_id: `ord-${i % 3}` })).id);
    await sys.http.post(`/merchant/v1/payment-links/${ids[0]}/cancel`, {}, { headers: merchant.keys });
  });

  it('returns the newest first under payment_links and payments, with full objects', async () => {
    const res = await sys.http.get('/merchant/v1/payment-links', { headers: merchant.keys });
    expect(res.status).toBe(200);
    expect(res.body.payment_links.map((l: { id: string }) => l.id)).toEqual([...ids].reverse());
    expect(res.body.payments).toEqual(res.body.payment_links);
    expect(res.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(res.body.payment_links[0]).toHaveProperty('checkout_url');
    expect(res.body.payment_links[0]).toHaveProperty('platform_revenue');
  });

  it('pages with a cursor without gaps or repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor ? `?limit=3&cursor=${encodeURIComponent(cursor)}` : '?limit=3';
      const res = await sys.http.get(`/merchant/v1/payment-links${q}`, { headers: merchant.keys });
      expect(res.status).toBe(200);
      seen.push(...res.body.payment_links.map((l: { id: string }) => l.id));
      expect(res.body.has_more).toBe(res.body.next_cursor !== null);
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    expect(pages).toBe(3);
  });

  it('filters by status, shop_id and order_id', async () => {
    const get = async (q: string) =>
      (await sys.http.get(`/merchant/v1/payment-links?${q}`, { headers: merchant.keys })).body.payment_links.map((l: { id: string }) => l.id);
    expect(await get('status=canceled')).toEqual([ids[0]]);
    expect(await get(`shop_id=${shopB.id}`)).toEqual([ids[5], ids[3], ids[1]]);
    expect(await get('order_id=ord-1')).toEqual([ids[4], ids[1]]);
    expect(await get(`status=pending&shop_id=${shopA.id}`)).toEqual([ids[6], ids[4], ids[2]]);
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'status=done', 'cursor=%%%', 'cursor=bm90LWEtY3Vyc29y', 'shop_id=x', 'sort=asc'])(
    'answers 400 validation_failed for %s',
    async (q) => {
      expectError(await sys.http.get(`/merchant/v1/payment-links?${q}`, { headers: merchant.keys }), 400, 'common.err.validation_failed');
    },
  );

  it("lists only the caller's links, with a session too", async () => {
    const other = await sys.merchantWithShop();
    await create(other.merchant, other.shop);
    const token = await sys.login(merchant);
    const res = await sys.http.get('/api/v1/payment-links?limit=100', { headers: { Cookie: `sid=${token}` } });
    expect(res.status).toBe(200);
    expect(res.body.payment_links.map((l: { id: string }) => l.id)).toEqual([...ids].reverse());
  });
});
