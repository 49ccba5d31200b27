import { createHmac, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { eventually } from '@pl/testing';
import { expectError, type ApiResponse } from '../support/http';
import { sandboxPaymentId, startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * docs/test-mode.md through the public API: gateway, NATS, links, shops, notifier, Postgres and Kafka as in production.
 * Every rule is checked in both directions (a live credential on test objects, a test credential on live ones),
 * since a leak either way breaks the promise that the two worlds are separate.
 */
const WEBHOOK_SECRET = 'test-mode-webhook-secret';
/** Webhooks of links with this order id are refused by the receiver on every attempt, so their deliveries fail. */
const FAILING_ORDER = 'receiver-refuses-this-one';
const TEST = { 'Pl-Mode': 'test' };
const MERCHANT_ONLY = ['merchant_credit', 'platform_revenue', 'fee_percent_bp', 'order_id'];

type Headers = Record<string, string>;

let sys: TestSystem;
let receiver: WebhookReceiver;

beforeAll(async () => {
  sys = await startSystem();
  receiver = await WebhookReceiver.start({ status: (_n, hit) => (hit.json?.data?.order_id === FAILING_ORDER ? 500 : 200) });
}, 60_000);
afterAll(async () => {
  await sys?.stop();
  await receiver?.close();
});

const bearer = (token: string): Headers => ({ Authorization: `Bearer ${token}` });
const idsOf = (res: ApiResponse): string[] => {
  expect(res.status).toBe(200);
  return res.body.payment_links.map((l: { id: string }) => l.id);
};
const signedShop = (merchant: TestMerchant, status: 'approved' | 'pending' | 'rejected' | 'blocked' = 'approved'): Promise<TestShop> =>
  sys.shop(merchant.id, { status, webhookUrl: receiver.url, webhookSecret: WEBHOOK_SECRET });

/** Creates a link through the API-key route with the given pair (live or test) and returns it. */
const create = async (keys: Headers, shop: TestShop, extra: Record<string, unknown> = {}) => {
  const res = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 100, ...extra }, { headers: keys });
  expect(res.status).toBe(201);
  return res.body;
};
/** Every cell answered before any is judged, so a failing cell leaves no request in flight to disturb the next test. */
const allAnswered = (cells: [string, Promise<ApiResponse>][]): Promise<[string, ApiResponse][]> =>
  Promise.all(cells.map(async ([cell, call]): Promise<[string, ApiResponse]> => [cell, await call]));
const simulate = (id: string, status: unknown): Promise<ApiResponse> => sys.http.post(`/p/${id}/simulate`, { status });
const linkRows = async (merchantId: string): Promise<number> =>
  Number((await sys.sql<{ n: string }>('SELECT count(*) AS n FROM links.payment_links WHERE merchant_id = $1', [merchantId]))[0]?.n);

describe('credentials decide the mode', () => {
  let merchant: TestMerchant;
  let shop: TestShop;
  let session: string;
  beforeAll(async () => {
    merchant = await sys.merchant();
    shop = await signedShop(merchant);
    session = await sys.login(merchant);
  });

  it('issues prefixed live and test credentials to every merchant and shop', () => {
    expect(merchant.apiKey).toMatch(/^pk_live_/);
    expect(merchant.apiSecret).toMatch(/^sk_live_/);
    expect(merchant.testApiKey).toMatch(/^pk_test_/);
    expect(merchant.testApiSecret).toMatch(/^sk_test_/);
    expect(shop.cashierKey).toMatch(/^svc_live_/);
    expect(shop.testCashierKey).toMatch(/^svc_test_/);
  });

  it('creates a link in the mode of each credential, on every create route', async () => {
    const body = { shop_id: shop.id, amount: 10 };
    const cells: [string, Promise<ApiResponse>, boolean][] = [
      ['live pair', sys.http.post('/merchant/v1/payment-links', body, { headers: merchant.keys }), true],
      ['test pair', sys.http.post('/merchant/v1/payment-links', body, { headers: merchant.testKeys }), false],
      ['live cashier', sys.http.post('/api/v1/merchant/payments', { amount: 10 }, { headers: bearer(shop.cashierKey) }), true],
      ['test cashier', sys.http.post('/api/v1/merchant/payments', { amount: 10 }, { headers: bearer(shop.testCashierKey) }), false],
      [
        'test cashier on /api/v1/payment-links',
        sys.http.post('/api/v1/payment-links', { amount: 10 }, { headers: bearer(shop.testCashierKey) }),
        false,
      ],
      ['session', sys.http.post('/api/v1/payment-links', body, { headers: bearer(session) }), true],
      ['session, Pl-Mode: live', sys.http.post('/api/v1/payment-links', body, { headers: { ...bearer(session), 'Pl-Mode': 'live' } }), true],
      ['session, Pl-Mode: test', sys.http.post('/api/v1/payment-links', body, { headers: { ...bearer(session), ...TEST } }), false],
      ['test pair, Pl-Mode: test', sys.http.post('/merchant/v1/payment-links', body, { headers: { ...merchant.testKeys, ...TEST } }), false],
      [
        'live cashier, Pl-Mode: live',
        sys.http.post('/api/v1/merchant/payments', { amount: 10 }, { headers: { ...bearer(shop.cashierKey), 'Pl-Mode': 'live' } }),
        true,
      ],
    ];
    const answers = await Promise.all(cells.map(([, call]) => call));
    for (const [i, [credential, , livemode]] of cells.entries()) {
      const res = answers[i]!;
      expect({ credential, status: res.status, livemode: res.body?.livemode, shop_id: res.body?.shop_id }).toEqual({
        credential,
        status: 201,
        livemode,
        shop_id: shop.id,
      });
    }
  });

  it.each([
    ['pk_test_ with sk_live_', () => ({ 'X-API-Key': merchant.testApiKey, 'X-API-Secret': merchant.apiSecret })],
    ['pk_live_ with sk_test_', () => ({ 'X-API-Key': merchant.apiKey, 'X-API-Secret': merchant.testApiSecret })],
  ])('refuses a pair whose halves are of different modes (%s) with 401, on reads and creates', async (_name, keys) => {
    const before = await linkRows(merchant.id);
    const mixed = await sys.http.get('/merchant/v1/payment-links', { headers: keys() });
    expectError(mixed, 401, 'common.err.unauthorized');
    // The same answer as any bad pair: nothing tells a caller that both halves were valid on their own.
    const wrongSecret = await sys.http.get('/merchant/v1/payment-links', {
      headers: { 'X-API-Key': merchant.testApiKey, 'X-API-Secret': `sk_test_${'0'.repeat(merchant.testApiSecret.length - 8)}` },
    });
    expect(mixed.body.error.message).toBe(wrongSecret.body.error.message);
    expectError(
      await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: keys() }),
      401,
      'common.err.unauthorized',
    );
    expect(await linkRows(merchant.id)).toBe(before);
  });

  it('answers 400 when Pl-Mode names another mode than the API key or cashier key, and creates nothing', async () => {
    const before = await linkRows(merchant.id);
    const cells: [string, Promise<ApiResponse>][] = [
      [
        'test pair, live',
        sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: { ...merchant.testKeys, 'Pl-Mode': 'live' } }),
      ],
      ['live pair, test', sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: { ...merchant.keys, ...TEST } })],
      ['live pair list, test', sys.http.get('/merchant/v1/payment-links', { headers: { ...merchant.keys, ...TEST } })],
      ['test pair list, live', sys.http.get('/merchant/v1/payment-links', { headers: { ...merchant.testKeys, 'Pl-Mode': 'live' } })],
      ['test pair deliveries, live', sys.http.get('/merchant/v1/webhook-deliveries', { headers: { ...merchant.testKeys, 'Pl-Mode': 'live' } })],
      ['live cashier, test', sys.http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: { ...bearer(shop.cashierKey), ...TEST } })],
      [
        'test cashier, live',
        sys.http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: { ...bearer(shop.testCashierKey), 'Pl-Mode': 'live' } }),
      ],
      [
        'test cashier on /api/v1/payment-links, live',
        sys.http.post('/api/v1/payment-links', { amount: 1 }, { headers: { ...bearer(shop.testCashierKey), 'Pl-Mode': 'live' } }),
      ],
    ];
    for (const [cell, res] of await allAnswered(cells)) {
      expect({ cell, status: res.status, code: res.body?.error?.code }).toEqual({ cell, status: 400, code: 'common.err.validation_failed' });
    }
    expect(await linkRows(merchant.id)).toBe(before);
  });

  it.each(['TEST', 'Live', 'sandbox', 'true'])(
    'answers 400 validation_failed to Pl-Mode: %s on session, API-key and cashier routes',
    async (value) => {
      const header = { 'Pl-Mode': value };
      const before = await linkRows(merchant.id);
      expectError(await sys.http.get('/api/v1/payment-links', { headers: { ...bearer(session), ...header } }), 400, 'common.err.validation_failed');
      expectError(
        await sys.http.post('/api/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: { ...bearer(session), ...header } }),
        400,
        'common.err.validation_failed',
      );
      expectError(await sys.http.get('/api/v1/shops', { headers: { ...bearer(session), ...header } }), 400, 'common.err.validation_failed');
      expectError(
        await sys.http.get('/merchant/v1/payment-links', { headers: { ...merchant.testKeys, ...header } }),
        400,
        'common.err.validation_failed',
      );
      expectError(
        await sys.http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: { ...bearer(shop.testCashierKey), ...header } }),
        400,
        'common.err.validation_failed',
      );
      expect(await linkRows(merchant.id)).toBe(before);
    },
  );
});

it('authenticates before it reads Pl-Mode: a bad or mismatched header with a bad credential is 401', async () => {
  const { merchant, shop } = await sys.merchantWithShop();
  const cells: [string, Promise<ApiResponse>][] = [
    ['no session, bad value', sys.http.get('/api/v1/payment-links', { headers: { 'Pl-Mode': 'sandbox' } })],
    ['unknown session, test', sys.http.get('/api/v1/payment-links', { headers: { ...bearer('0'.repeat(43)), ...TEST } })],
    [
      'wrong test secret, live',
      sys.http.get('/merchant/v1/payment-links', {
        headers: { 'X-API-Key': merchant.testApiKey, 'X-API-Secret': `${merchant.testApiSecret.slice(0, -2)}xx`, 'Pl-Mode': 'live' },
      }),
    ],
    [
      'unknown test cashier key, live',
      sys.http.post(
        '/api/v1/merchant/payments',
        { amount: 1 },
        { headers: { ...bearer(`${shop.testCashierKey.slice(0, -2)}xx`), 'Pl-Mode': 'live' } },
      ),
    ],
  ];
  for (const [cell, res] of await allAnswered(cells)) {
    expect({ cell, status: res.status, code: res.body?.error?.code }).toEqual({ cell, status: 401, code: 'common.err.unauthorized' });
  }
});

describe('credentials of each mode from the session API', () => {
  it('creates, lists and reissues API keys of either mode; each pair creates links of its own mode', async () => {
    const merchant = await sys.merchant();
    const shop = await signedShop(merchant);
    const session = bearer(await sys.login(merchant));
    const test = await sys.http.post('/api/v1/api-keys', { label: 'ci', mode: 'test' }, { headers: session });
    expect(test.status).toBe(201);
    expect(test.body).toMatchObject({ mode: 'test', public_key: expect.stringMatching(/^pk_test_/), api_secret: expect.stringMatching(/^sk_test_/) });
    const live = await sys.http.post('/api/v1/api-keys', { label: 'prod' }, { headers: session });
    expect(live.body).toMatchObject({ mode: 'live', public_key: expect.stringMatching(/^pk_live_/), api_secret: expect.stringMatching(/^sk_live_/) });
    expectError(await sys.http.post('/api/v1/api-keys', { mode: 'sandbox' }, { headers: session }), 400, 'common.err.validation_failed');

    const pair = (k: { public_key: string; api_secret: string }): Headers => ({ 'X-API-Key': k.public_key, 'X-API-Secret': k.api_secret });
    expect((await create(pair(test.body), shop)).livemode).toBe(false);
    expect((await create(pair(live.body), shop)).livemode).toBe(true);
    const listed = await sys.http.get('/api/v1/api-keys', { headers: session });
    const modes = Object.fromEntries(listed.body.api_keys.map((k: { id: string; mode: string }) => [k.id, k.mode]));
    expect(modes).toMatchObject({ [test.body.id]: 'test', [live.body.id]: 'live' });

    const reissued = await sys.http.post(`/api/v1/api-keys/${test.body.id}/reissue`, { grace_minutes: 0 }, { headers: session });
    expect(reissued.status).toBe(201);
    expect(reissued.body).toMatchObject({
      mode: 'test',
      public_key: expect.stringMatching(/^pk_test_/),
      api_secret: expect.stringMatching(/^sk_test_/),
    });
    expect((await create(pair(reissued.body), shop)).livemode).toBe(false);
    expectError(await sys.http.get('/merchant/v1/payment-links', { headers: pair(test.body) }), 401, 'common.err.unauthorized');
  });

  it("reissues one mode's cashier key and leaves the other mode's working", async () => {
    const merchant = await sys.merchant();
    const shop = await signedShop(merchant);
    const session = bearer(await sys.login(merchant));
    const pay = (key: string) => sys.http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: bearer(key) });
    const reissued = await sys.http.post(`/api/v1/shops/${shop.id}/cashier-key/reissue`, { mode: 'test' }, { headers: session });
    expect(reissued.status).toBe(200);
    expect(reissued.body).toEqual({ cashier_key: expect.stringMatching(/^svc_test_/), mode: 'test' });
    expect((await pay(reissued.body.cashier_key)).body).toMatchObject({ livemode: false, shop_id: shop.id });
    expectError(await pay(shop.testCashierKey), 401, 'common.err.unauthorized');
    expect((await pay(shop.cashierKey)).body).toMatchObject({ livemode: true, shop_id: shop.id });

    const live = await sys.http.post(`/api/v1/shops/${shop.id}/cashier-key/reissue`, {}, { headers: session });
    expect(live.body).toEqual({ cashier_key: expect.stringMatching(/^svc_live_/), mode: 'live' });
    expectError(await pay(shop.cashierKey), 401, 'common.err.unauthorized');
    expect((await pay(reissued.body.cashier_key)).status).toBe(201);
    expectError(
      await sys.http.post(`/api/v1/shops/${shop.id}/cashier-key/reissue`, { mode: 'Test' }, { headers: session }),
      400,
      'common.err.validation_failed',
    );
  });
});

describe('two separate worlds: links', () => {
  let merchant: TestMerchant;
  let shopA: TestShop;
  let shopB: TestShop;
  let session: string;
  /** Created alternately, live and test, so that every page and filter crosses links of the other mode. */
  const live: string[] = [];
  const test: string[] = [];
  const sessionLive = (): Headers => bearer(session);
  const sessionTest = (): Headers => ({ ...bearer(session), ...TEST });

  beforeAll(async () => {
    merchant = await sys.merchant();
    shopA = await signedShop(merchant);
    shopB = await signedShop(merchant);
    // index: 0 A ord-1, 1 B ord-2, 2 A ord-1 (canceled), 3 B ord-1
    const plan: [TestShop, string][] = [
      [shopA, 'ord-1'],
      [shopB, 'ord-2'],
      [shopA, 'ord-1'],
      [shopB, 'ord-1'],
    ];
    for (const [shop, order] of plan) {
      live.push((await create(merchant.keys, shop, { order_id: order })).id);
      test.push((await create(merchant.testKeys, shop, { order_id: order })).id);
    }
    expect((await sys.http.post(`/merchant/v1/payment-links/${live[2]}/cancel`, {}, { headers: merchant.keys })).status).toBe(200);
    expect((await sys.http.post(`/merchant/v1/payment-links/${test[2]}/cancel`, {}, { headers: merchant.testKeys })).status).toBe(200);
    session = await sys.login(merchant);
  });

  const stillPending = async (): Promise<void> => {
    expect((await sys.http.get(`/merchant/v1/payment-links/${live[0]}`, { headers: merchant.keys })).body.status).toBe('pending');
    expect((await sys.http.get(`/merchant/v1/payment-links/${test[0]}`, { headers: merchant.testKeys })).body.status).toBe('pending');
  };

  it('reads each link with its own mode, livemode telling which', async () => {
    const l = await sys.http.get(`/merchant/v1/payment-links/${live[0]}`, { headers: merchant.keys });
    const t = await sys.http.get(`/merchant/v1/payment-links/${test[0]}`, { headers: merchant.testKeys });
    expect([l.status, l.body.livemode, t.status, t.body.livemode]).toEqual([200, true, 200, false]);
    const ts = await sys.http.get(`/api/v1/payment-links/${test[0]}`, { headers: sessionTest() });
    expect(ts.status).toBe(200);
    expect(ts.body).toEqual(t.body);
    expect((await sys.http.get(`/api/v1/payment-links/${live[0]}`, { headers: sessionLive() })).body).toEqual(l.body);
    expect((await sys.http.get(`/api/v1/payment-links/${live[0]}`, { headers: { ...sessionLive(), 'Pl-Mode': 'live' } })).body).toEqual(l.body);
  });

  it('answers 404 not_found to a get of the other mode, on every route and credential', async () => {
    const cells: [string, Promise<ApiResponse>][] = [
      ['live pair, test link', sys.http.get(`/merchant/v1/payment-links/${test[0]}`, { headers: merchant.keys })],
      ['test pair, live link', sys.http.get(`/merchant/v1/payment-links/${live[0]}`, { headers: merchant.testKeys })],
      ['session, test link', sys.http.get(`/api/v1/payment-links/${test[0]}`, { headers: sessionLive() })],
      ['session Pl-Mode live, test link', sys.http.get(`/api/v1/payment-links/${test[0]}`, { headers: { ...sessionLive(), 'Pl-Mode': 'live' } })],
      ['session Pl-Mode test, live link', sys.http.get(`/api/v1/payment-links/${live[0]}`, { headers: sessionTest() })],
      ['live pair, canceled test link', sys.http.get(`/merchant/v1/payment-links/${test[2]}`, { headers: merchant.keys })],
    ];
    for (const [cell, res] of await allAnswered(cells)) {
      expect({ cell, status: res.status, code: res.body?.error?.code }).toEqual({ cell, status: 404, code: 'common.err.not_found' });
    }
  });

  it('answers 404 not_found to a cancel of the other mode and leaves the link pending', async () => {
    const cells: [string, Promise<ApiResponse>][] = [
      ['live pair, test link', sys.http.post(`/merchant/v1/payment-links/${test[0]}/cancel`, {}, { headers: merchant.keys })],
      ['test pair, live link', sys.http.post(`/merchant/v1/payment-links/${live[0]}/cancel`, {}, { headers: merchant.testKeys })],
      ['session, test link', sys.http.post(`/api/v1/payment-links/${test[0]}/cancel`, {}, { headers: sessionLive() })],
      ['session Pl-Mode test, live link', sys.http.post(`/api/v1/payment-links/${live[0]}/cancel`, {}, { headers: sessionTest() })],
      // A link the other mode already canceled is not a 409 either: it does not exist here.
      ['test pair, canceled live link', sys.http.post(`/merchant/v1/payment-links/${live[2]}/cancel`, {}, { headers: merchant.testKeys })],
    ];
    for (const [cell, res] of await allAnswered(cells)) {
      expect({ cell, status: res.status, code: res.body?.error?.code }).toEqual({ cell, status: 404, code: 'common.err.not_found' });
    }
    await stillPending();
  });

  it("answers 404 (not 403) to another merchant's link of the other mode, 403 to one of the same mode", async () => {
    const other = await sys.merchant();
    const otherShop = await signedShop(other);
    const theirTest = (await create(other.testKeys, otherShop)).id;
    const theirLive = (await create(other.keys, otherShop)).id;
    expectError(await sys.http.get(`/merchant/v1/payment-links/${theirTest}`, { headers: merchant.keys }), 404, 'common.err.not_found');
    expectError(await sys.http.get(`/merchant/v1/payment-links/${theirLive}`, { headers: merchant.testKeys }), 404, 'common.err.not_found');
    expectError(await sys.http.get(`/merchant/v1/payment-links/${theirTest}`, { headers: merchant.testKeys }), 403, 'common.err.forbidden');
    expectError(
      await sys.http.post(`/merchant/v1/payment-links/${theirTest}/cancel`, {}, { headers: merchant.testKeys }),
      403,
      'common.err.forbidden',
    );
    expectError(
      await sys.http.post('/merchant/v1/payment-links', { shop_id: otherShop.id, amount: 1 }, { headers: merchant.testKeys }),
      403,
      'common.err.forbidden',
    );
  });

  it.each([
    ['', (ids: string[]) => [ids[3], ids[2], ids[1], ids[0]]],
    ['status=canceled', (ids: string[]) => [ids[2]]],
    ['status=pending', (ids: string[]) => [ids[3], ids[1], ids[0]]],
    ['shop_id=B', (ids: string[]) => [ids[3], ids[1]]],
    ['order_id=ord-1', (ids: string[]) => [ids[3], ids[2], ids[0]]],
    ['status=pending&shop_id=A', (ids: string[]) => [ids[0]]],
    ['order_id=ord-2&shop_id=B', (ids: string[]) => [ids[1]]],
  ])('lists only the mode’s own links (%s), on both list routes', async (query, expected) => {
    const q = query.replace('shop_id=A', `shop_id=${shopA.id}`).replace('shop_id=B', `shop_id=${shopB.id}`);
    const listed = async (path: string, headers: Headers) => idsOf(await sys.http.get(`${path}?${q}`, { headers }));
    expect(await listed('/merchant/v1/payment-links', merchant.keys)).toEqual(expected(live));
    expect(await listed('/merchant/v1/payment-links', merchant.testKeys)).toEqual(expected(test));
    expect(await listed('/api/v1/payment-links', sessionLive())).toEqual(expected(live));
    expect(await listed('/api/v1/payment-links', { ...sessionLive(), 'Pl-Mode': 'live' })).toEqual(expected(live));
    expect(await listed('/api/v1/payment-links', sessionTest())).toEqual(expected(test));
  });

  it('pages each mode with limit and cursor, without the other mode’s links, has_more false on the last page', async () => {
    const pages = async (path: string, headers: Headers): Promise<string[][]> => {
      const seen: string[][] = [];
      let cursor: string | null = null;
      do {
        const q: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
        const res = await sys.http.get(`${path}${q}`, { headers });
        seen.push(idsOf(res));
        expect(res.body.has_more).toBe(res.body.next_cursor !== null);
        cursor = res.body.next_cursor;
      } while (cursor && seen.length < 5);
      return seen;
    };
    const expected = (ids: string[]) => [
      [ids[3], ids[2]],
      [ids[1], ids[0]],
    ];
    expect(await pages('/merchant/v1/payment-links', merchant.keys)).toEqual(expected(live));
    expect(await pages('/merchant/v1/payment-links', merchant.testKeys)).toEqual(expected(test));
    expect(await pages('/api/v1/payment-links', sessionTest())).toEqual(expected(test));
    expect(await pages('/api/v1/payment-links', sessionLive())).toEqual(expected(live));
  });
});

describe('idempotency keys per mode', () => {
  let merchant: TestMerchant;
  let shopA: TestShop;
  let session: string;
  const sessionLive = (): Headers => bearer(session);
  const sessionTest = (): Headers => ({ ...bearer(session), ...TEST });
  beforeAll(async () => {
    merchant = await sys.merchant();
    shopA = await signedShop(merchant);
    session = await sys.login(merchant);
  });

  it('keeps Idempotency-Keys per mode: the same key with the live and the test pair makes two links, each replayed in its own mode', async () => {
    const key = `both-modes-${randomUUID()}`;
    const body = { shop_id: shopA.id, amount: 42, order_id: 'idem' };
    const send = (keys: Headers) => sys.http.post('/merchant/v1/payment-links', body, { headers: { ...keys, 'Idempotency-Key': key } });
    const liveFirst = await send(merchant.keys);
    const testFirst = await send(merchant.testKeys);
    expect([liveFirst.status, testFirst.status]).toEqual([201, 201]);
    expect(testFirst.headers.get('idempotent-replayed')).toBeNull();
    expect(testFirst.body.id).not.toBe(liveFirst.body.id);
    expect([liveFirst.body.livemode, testFirst.body.livemode]).toEqual([true, false]);
    const [liveAgain, testAgain] = [await send(merchant.keys), await send(merchant.testKeys)];
    expect({ status: liveAgain.status, replayed: liveAgain.headers.get('idempotent-replayed'), body: liveAgain.body }).toEqual({
      status: 201,
      replayed: 'true',
      body: liveFirst.body,
    });
    expect({ status: testAgain.status, replayed: testAgain.headers.get('idempotent-replayed'), body: testAgain.body }).toEqual({
      status: 201,
      replayed: 'true',
      body: testFirst.body,
    });
    // The session's create route keeps its keys per mode the same way.
    const viaSession = (headers: Headers) => sys.http.post('/api/v1/payment-links', body, { headers: { ...headers, 'Idempotency-Key': key } });
    const sLive = await viaSession(sessionLive());
    const sTest = await viaSession(sessionTest());
    expect([sLive.status, sLive.body.livemode, sTest.status, sTest.body.livemode]).toEqual([201, true, 201, false]);
    expect(sTest.body.id).not.toBe(sLive.body.id);
    expect((await viaSession(sessionTest())).body).toEqual(sTest.body);
  });

  it("never replays a cancel of one mode's link to the other mode's credential", async () => {
    const t = (await create(merchant.testKeys, shopA)).id;
    const l = (await create(merchant.keys, shopA)).id;
    const key = `cancel-${randomUUID()}`;
    const cancel = (id: string, headers: Headers) =>
      sys.http.post(`/merchant/v1/payment-links/${id}/cancel`, {}, { headers: { ...headers, 'Idempotency-Key': key } });
    const first = await cancel(t, merchant.testKeys);
    expect([first.status, first.body.status, first.body.livemode]).toEqual([200, 'canceled', false]);
    const replay = await cancel(t, merchant.testKeys);
    expect({ status: replay.status, replayed: replay.headers.get('idempotent-replayed'), body: replay.body }).toEqual({
      status: 200,
      replayed: 'true',
      body: first.body,
    });
    expectError(await cancel(t, merchant.keys), 404, 'common.err.not_found');
    const sessionReplay = await sys.http.post(`/api/v1/payment-links/${t}/cancel`, {}, { headers: { ...sessionLive(), 'Idempotency-Key': key } });
    expectError(sessionReplay, 404, 'common.err.not_found');
    // And the reverse: a live cancel's key replayed with the test pair is a 404, the live link stays canceled.
    const liveKey = `cancel-live-${randomUUID()}`;
    const liveCancel = await sys.http.post(
      `/merchant/v1/payment-links/${l}/cancel`,
      {},
      { headers: { ...merchant.keys, 'Idempotency-Key': liveKey } },
    );
    expect(liveCancel.status).toBe(200);
    expectError(
      await sys.http.post(`/merchant/v1/payment-links/${l}/cancel`, {}, { headers: { ...merchant.testKeys, 'Idempotency-Key': liveKey } }),
      404,
      'common.err.not_found',
    );
    expect((await sys.http.get(`/merchant/v1/payment-links/${l}`, { headers: merchant.keys })).body.status).toBe('canceled');
  });
});

describe('shops are shared by both modes', () => {
  it('lists and reads the same shops with either mode, and a change made in one mode is seen in the other', async () => {
    const merchant = await sys.merchant();
    const a = await signedShop(merchant);
    const b = await signedShop(merchant, 'pending');
    const session = await sys.login(merchant);
    const liveList = await sys.http.get('/api/v1/shops', { headers: bearer(session) });
    const testList = await sys.http.get('/api/v1/shops', { headers: { ...bearer(session), ...TEST } });
    expect(liveList.status).toBe(200);
    expect(testList.body).toEqual(liveList.body);
    expect(liveList.body.shops.map((s: { id: number }) => s.id).sort()).toEqual([a.id, b.id].sort());
    const byKeys = await sys.http.get('/merchant/v1/shops', { headers: merchant.keys });
    expect((await sys.http.get('/merchant/v1/shops', { headers: merchant.testKeys })).body).toEqual(byKeys.body);
    expect((await sys.http.get(`/merchant/v1/shops/${a.id}`, { headers: merchant.testKeys })).body).toEqual(
      (await sys.http.get(`/merchant/v1/shops/${a.id}`, { headers: merchant.keys })).body,
    );

    const patched = await sys.http.call('PATCH', `/api/v1/shops/${a.id}`, {
      headers: { ...bearer(session), ...TEST },
      body: { name: 'Renamed in test mode' },
    });
    expect(patched.status).toBe(200);
    expect((await sys.http.get(`/api/v1/shops/${a.id}`, { headers: bearer(session) })).body.name).toBe('Renamed in test mode');
  });

  it("sends a shop's webhook.test in the caller's mode, to the address both modes share", async () => {
    const merchant = await sys.merchant();
    const shop = await signedShop(merchant);
    const session = await sys.login(merchant);
    for (const [headers, livemode] of [
      [bearer(session), true],
      [{ ...bearer(session), ...TEST }, false],
    ] as const) {
      const sent = await sys.http.post(`/api/v1/shops/${shop.id}/webhook-test`, {}, { headers });
      expect([sent.status, sent.body.livemode]).toEqual([202, livemode]);
      const hit = await receiver.waitFor((h) => h.headers['x-webhook-id'] === sent.body.webhook_id);
      expect(hit.json).toMatchObject({ event: 'webhook.test', livemode, data: { shop_id: shop.id } });
      expect(hit.headers['x-webhook-signature']).toBe(createHmac('sha256', WEBHOOK_SECRET).update(hit.body).digest('hex'));
    }
  });

  it('signs test webhooks with the secret a rotation made in live mode', async () => {
    const merchant = await sys.merchant();
    const shop = await signedShop(merchant);
    const session = await sys.login(merchant);
    const rotated = await sys.http.post(`/api/v1/shops/${shop.id}/webhook-secret/rotate`, {}, { headers: bearer(session) });
    expect(rotated.status).toBe(200);
    const secret: string = rotated.body.webhook_secret;
    expect(typeof secret).toBe('string');
    const id = (await create(merchant.testKeys, shop)).id;
    expect((await simulate(id, 'paid')).status).toBe(200);
    const hit = await receiver.nthFor(id, 1);
    expect(hit.json.livemode).toBe(false);
    expect(hit.headers['x-webhook-signature']).toBe(createHmac('sha256', secret).update(hit.body).digest('hex'));
  });
});

describe('approval and test links', () => {
  let merchant: TestMerchant;
  let session: string;
  beforeAll(async () => {
    merchant = await sys.merchant();
    session = await sys.login(merchant);
  });

  it('creates test links for a pending shop with every test credential, and refuses live ones with 422', async () => {
    const shop = await signedShop(merchant, 'pending');
    const created = [
      await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: merchant.testKeys }),
      await sys.http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: bearer(shop.testCashierKey) }),
      await sys.http.post('/api/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: { ...bearer(session), ...TEST } }),
    ];
    for (const res of created) expect([res.status, res.body.livemode]).toEqual([201, false]);
    expectError(
      await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: merchant.keys }),
      422,
      'shop.err.not_approved',
    );
    expectError(await sys.http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: bearer(shop.cashierKey) }), 422, 'shop.err.not_approved');
    expectError(
      await sys.http.post('/api/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: bearer(session) }),
      422,
      'shop.err.not_approved',
    );
    // A pending shop's test link goes the whole way: checkout, simulated payment, webhook.
    const id = created[0]!.body.id as string;
    expect((await simulate(id, 'paid')).body.status).toBe('paid');
    expect((await receiver.nthFor(id, 1)).json).toMatchObject({ event: 'payment.succeeded', livemode: false });
  });

  it.each(['blocked', 'rejected'] as const)('refuses test links for a %s shop with 422 shop.err.not_approved', async (status) => {
    const shop = await signedShop(merchant, status);
    const before = await linkRows(merchant.id);
    const refused = [
      await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: merchant.testKeys }),
      await sys.http.post('/api/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: { ...bearer(session), ...TEST } }),
      await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: merchant.keys }),
    ];
    for (const res of refused) expectError(res, 422, 'shop.err.not_approved');
    expectError(
      await sys.http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: bearer(shop.testCashierKey) }),
      422,
      'shop.err.not_approved',
    );
    expectError(await sys.http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: bearer(shop.cashierKey) }), 422, 'shop.err.not_approved');
    expect(await linkRows(merchant.id)).toBe(before);
  });
});

describe('POST /p/{id}/simulate', () => {
  let merchant: TestMerchant;
  let shop: TestShop;
  beforeAll(async () => {
    merchant = await sys.merchant();
    shop = await signedShop(merchant);
  });
  const testLink = async (): Promise<string> => (await create(merchant.testKeys, shop, { amount: '1000.00', order_id: `o-${randomUUID()}` })).id;
  const getTest = (id: string) => sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: merchant.testKeys });
  /** Another test link paid and its webhook awaited: the pipeline had its chance to send one for an earlier link too. */
  const barrier = async (): Promise<void> => {
    const other = await testLink();
    expect((await simulate(other, 'paid')).status).toBe(200);
    await receiver.nthFor(other, 1);
  };

  it('pays a test link: 200 buyer view, the link paid, one signed payment.succeeded webhook with livemode false', async () => {
    const id = await testLink();
    const res = await simulate(id, 'paid');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'paid', livemode: false });
    for (const field of MERCHANT_ONLY) expect(res.body).not.toHaveProperty(field);
    const link = (await getTest(id)).body;
    expect(link).toMatchObject({ status: 'paid', livemode: false, paid_at: expect.stringMatching(/\+03:00$/) });

    const hit = await receiver.nthFor(id, 1);
    const h0 = hit.headers;
    expect(hit.json).toEqual({
      event: 'payment.succeeded',
      event_id: h0['webhook-id'],
      created_at: link.paid_at,
      livemode: false,
      data: {
        payment_link_id: id,
        id,
        shop_id: shop.id,
        order_id: link.order_id,
        amount: '1000.00',
        merchant_credit: link.merchant_credit,
        status: 'paid',
        paid_at: link.paid_at,
      },
    });
    // "livemode" sits right before "data" in the bytes, as a live webhook's does.
    expect(hit.body.toString('utf8')).toMatch(
      /^\{"event":"payment\.succeeded","event_id":"evt_[0-9a-f-]{36}","created_at":"[^"]+","livemode":false,"data":\{/,
    );
    const h = hit.headers;
    const hex = createHmac('sha256', WEBHOOK_SECRET).update(hit.body).digest('hex');
    expect({ sig: h['x-webhook-signature'], service: h['service-signature'], event: h['x-webhook-event'] }).toEqual({
      sig: hex,
      service: hex,
      event: 'payment.succeeded',
    });
    const standard = new Webhook(`whsec_${Buffer.from(WEBHOOK_SECRET, 'utf8').toString('base64')}`);
    expect(() =>
      standard.verify(hit.body.toString('utf8'), {
        'webhook-id': String(h['webhook-id']),
        'webhook-timestamp': String(h['webhook-timestamp']),
        'webhook-signature': String(h['webhook-signature']),
      }),
    ).not.toThrow();
    // The live world never sees it.
    expectError(await sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: merchant.keys }), 404, 'common.err.not_found');
    await barrier();
    expect(receiver.hitsFor(id)).toHaveLength(1);
  });

  it('fails a test link: the link failed, no webhook', async () => {
    const id = await testLink();
    const res = await simulate(id, 'failed');
    expect([res.status, res.body.status, res.body.livemode]).toEqual([200, 'failed', false]);
    expect((await getTest(id)).body).toMatchObject({ status: 'failed', paid_at: null });
    await barrier();
    expect(receiver.hitsFor(id)).toHaveLength(0);
  });

  it('pays a test link after the buyer selected a method, through the sandbox provider', async () => {
    const id = await testLink();
    const selected = await sys.http.post(`/p/${id}/select`, { method: 'sbp' });
    expect(selected.status).toBe(200);
    expect(selected.body).toMatchObject({ gateway_provider: 'sandbox', network: 'SBP', livemode: false });
    expect((await simulate(id, 'paid')).body).toMatchObject({ status: 'paid', network: 'SBP' });
    expect((await receiver.nthFor(id, 1)).json.livemode).toBe(false);
  });

  it('answers 404 for a live link and leaves it pending; a live link paid by its provider sends livemode true', async () => {
    const id = (await create(merchant.keys, shop, { order_id: `live-${randomUUID()}` })).id;
    expectError(await simulate(id, 'paid'), 404, 'common.err.not_found');
    expectError(await simulate(id, 'failed'), 404, 'common.err.not_found');
    expect((await sys.http.get(`/merchant/v1/payment-links/${id}`, { headers: merchant.keys })).body.status).toBe('pending');
    expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
    const hit = await receiver.nthFor(id, 1);
    expect(hit.body.toString('utf8')).toMatch(
      /^\{"event":"payment\.succeeded","event_id":"evt_[0-9a-f-]{36}","created_at":"[^"]+","livemode":true,"data":\{/,
    );
  });

  it('answers 409 payment_link.err.not_pending for a test link that is paid, failed or canceled, and changes nothing', async () => {
    const paid = await testLink();
    await simulate(paid, 'paid');
    const failed = await testLink();
    await simulate(failed, 'failed');
    const canceled = await testLink();
    expect((await sys.http.post(`/merchant/v1/payment-links/${canceled}/cancel`, {}, { headers: merchant.testKeys })).status).toBe(200);
    for (const [id, status] of [
      [paid, 'paid'],
      [failed, 'failed'],
      [canceled, 'canceled'],
    ] as const) {
      expectError(await simulate(id, 'paid'), 409, 'payment_link.err.not_pending');
      expectError(await simulate(id, 'failed'), 409, 'payment_link.err.not_pending');
      expect((await getTest(id)).body.status).toBe(status);
    }
  });

  it('answers 404 for an unknown or malformed id and 400 for a bad body', async () => {
    expectError(await simulate(randomUUID(), 'paid'), 404, 'common.err.not_found');
    expectError(await simulate('not-a-uuid', 'paid'), 404, 'common.err.not_found');
    const id = await testLink();
    for (const body of [{ status: 'expired' }, { status: 'paid', amount: 1 }, {}]) {
      expectError(await sys.http.post(`/p/${id}/simulate`, body), 400, 'common.err.validation_failed');
    }
    expect((await getTest(id)).body.status).toBe('pending');
  });
});

describe('two separate worlds: the delivery log', () => {
  let merchant: TestMerchant;
  let shop: TestShop;
  let session: string;
  /** Delivery ids per mode, oldest first: a succeeded one, a failed one, another succeeded one. */
  const live: { link: string; delivery: string }[] = [];
  const test: { link: string; delivery: string }[] = [];
  let testWebhookDelivery: string;

  const deliveriesOf = async (path: string, headers: Headers, query = ''): Promise<string[]> => {
    const res = await sys.http.get(`${path}${query ? `?${query}` : ''}`, { headers });
    expect(res.status).toBe(200);
    return res.body.deliveries.map((d: { id: string }) => d.id);
  };
  /** Waits until the link's delivery is listed in its mode with its final status, and returns its id. */
  const settled = async (link: string, keys: Headers, status: 'succeeded' | 'failed'): Promise<string> => {
    let found: { id: string; status: string } | undefined;
    await eventually(
      async () => {
        const res = await sys.http.get(`/merchant/v1/webhook-deliveries?payment_link_id=${link}`, { headers: keys });
        found = res.body.deliveries?.[0];
        return found?.status === status;
      },
      () => `the delivery of ${link} is ${status} (now ${found?.status})`,
      15_000,
      20,
    );
    return found!.id;
  };

  beforeAll(async () => {
    merchant = await sys.merchant();
    shop = await signedShop(merchant);
    session = await sys.login(merchant);
    // One at a time, alternating modes, so that the log's order is known and crosses modes.
    for (const [i, order] of [`a-${randomUUID()}`, FAILING_ORDER, `b-${randomUUID()}`].entries()) {
      const outcome = order === FAILING_ORDER ? 'failed' : 'succeeded';
      const l = (await create(merchant.keys, shop, { order_id: order })).id;
      expect((await sys.providerCallback(sandboxPaymentId(l), 'paid')).status).toBe(200);
      live.push({ link: l, delivery: await settled(l, merchant.keys, outcome) });
      const t = (await create(merchant.testKeys, shop, { order_id: order })).id;
      expect((await simulate(t, 'paid')).status).toBe(200);
      test.push({ link: t, delivery: await settled(t, merchant.testKeys, outcome) });
      expect(live.length + test.length).toBe(2 * (i + 1));
    }
    const sent = await sys.http.post(`/api/v1/shops/${shop.id}/webhook-test`, {}, { headers: { ...bearer(session), ...TEST } });
    expect([sent.status, sent.body.livemode, sent.body.event]).toEqual([202, false, 'webhook.test']);
    testWebhookDelivery = sent.body.id;
    // Settled, so that the status filters list it among the succeeded ones.
    await eventually(
      async () => {
        const res = await sys.http.get('/merchant/v1/webhook-deliveries?status=succeeded&limit=1', { headers: merchant.testKeys });
        return res.body.deliveries?.[0]?.id === testWebhookDelivery;
      },
      'the test-mode webhook.test delivery succeeded',
      15_000,
      20,
    );
  }, 60_000);

  it('marks every delivery and every webhook with its mode', async () => {
    const t = await sys.http.get('/merchant/v1/webhook-deliveries', { headers: merchant.testKeys });
    const l = await sys.http.get('/merchant/v1/webhook-deliveries', { headers: merchant.keys });
    expect(t.body.deliveries.map((d: { livemode: boolean }) => d.livemode)).toEqual([false, false, false, false]);
    expect(l.body.deliveries.map((d: { livemode: boolean }) => d.livemode)).toEqual([true, true, true]);
    const testHit = await receiver.waitFor((h) => h.json?.event === 'webhook.test' && h.json?.data?.shop_id === shop.id);
    expect(testHit.json.livemode).toBe(false);
    for (const { link } of test) expect(receiver.hitsFor(link).every((h) => h.json.livemode === false)).toBe(true);
    for (const { link } of live) expect(receiver.hitsFor(link).every((h) => h.json.livemode === true)).toBe(true);
  });

  it.each([
    ['no filter', () => '', (w: string[], t: string | null) => [...(t ? [t] : []), w[2]!, w[1]!, w[0]!]],
    ['shop_id', () => `shop_id=${shop.id}`, (w: string[], t: string | null) => [...(t ? [t] : []), w[2]!, w[1]!, w[0]!]],
    ['status=succeeded', () => 'status=succeeded', (w: string[], t: string | null) => [...(t ? [t] : []), w[2]!, w[0]!]],
    ['status=failed', () => 'status=failed', (w: string[]) => [w[1]!]],
    ['status=succeeded&shop_id', () => `status=succeeded&shop_id=${shop.id}`, (w: string[], t: string | null) => [...(t ? [t] : []), w[2]!, w[0]!]],
  ])('lists only the mode’s own deliveries (%s), with API keys and with the session', async (_name, query, expected) => {
    const liveIds = live.map((d) => d.delivery);
    const testIds = test.map((d) => d.delivery);
    const q = query();
    expect(await deliveriesOf('/merchant/v1/webhook-deliveries', merchant.keys, q)).toEqual(expected(liveIds, null));
    expect(await deliveriesOf('/api/v1/webhook-deliveries', bearer(session), q)).toEqual(expected(liveIds, null));
    expect(await deliveriesOf('/merchant/v1/webhook-deliveries', merchant.testKeys, q)).toEqual(expected(testIds, testWebhookDelivery));
    expect(await deliveriesOf('/api/v1/webhook-deliveries', { ...bearer(session), ...TEST }, q)).toEqual(expected(testIds, testWebhookDelivery));
  });

  it('lists a link’s deliveries only in its own mode: to the other mode the link does not exist (404, as a read of it)', async () => {
    for (const [i, { link, delivery }] of test.entries()) {
      expect(await deliveriesOf('/merchant/v1/webhook-deliveries', merchant.testKeys, `payment_link_id=${link}`)).toEqual([delivery]);
      expect(await deliveriesOf('/api/v1/webhook-deliveries', { ...bearer(session), ...TEST }, `payment_link_id=${link}`)).toEqual([delivery]);
      expectError(
        await sys.http.get(`/merchant/v1/webhook-deliveries?payment_link_id=${link}`, { headers: merchant.keys }),
        404,
        'common.err.not_found',
      );
      expectError(
        await sys.http.get(`/api/v1/webhook-deliveries?payment_link_id=${link}`, { headers: bearer(session) }),
        404,
        'common.err.not_found',
      );
      const l = live[i]!;
      expect(await deliveriesOf('/merchant/v1/webhook-deliveries', merchant.keys, `payment_link_id=${l.link}`)).toEqual([l.delivery]);
      expectError(
        await sys.http.get(`/merchant/v1/webhook-deliveries?payment_link_id=${l.link}`, { headers: merchant.testKeys }),
        404,
        'common.err.not_found',
      );
      expectError(
        await sys.http.get(`/api/v1/webhook-deliveries?payment_link_id=${l.link}`, { headers: { ...bearer(session), ...TEST } }),
        404,
        'common.err.not_found',
      );
    }
  });

  it('pages each mode’s log with limit and cursor, never crossing into the other mode', async () => {
    const pages = async (headers: Headers, path = '/merchant/v1/webhook-deliveries'): Promise<string[][]> => {
      const seen: string[][] = [];
      let cursor: string | null = null;
      do {
        const res = await sys.http.get(`${path}?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers });
        expect(res.status).toBe(200);
        seen.push(res.body.deliveries.map((d: { id: string }) => d.id));
        expect(res.body.has_more).toBe(res.body.next_cursor !== null);
        cursor = res.body.next_cursor;
      } while (cursor && seen.length < 5);
      return seen;
    };
    const [l0, l1, l2] = live.map((d) => d.delivery);
    const [t0, t1, t2] = test.map((d) => d.delivery);
    expect(await pages(merchant.keys)).toEqual([[l2, l1], [l0]]);
    expect(await pages(merchant.testKeys)).toEqual([
      [testWebhookDelivery, t2],
      [t1, t0],
    ]);
    expect(await pages({ ...bearer(session), ...TEST }, '/api/v1/webhook-deliveries')).toEqual([
      [testWebhookDelivery, t2],
      [t1, t0],
    ]);
  });

  it('answers 404 not_found to a resend of the other mode’s delivery, and sends nothing', async () => {
    const t = test[0]!;
    const l = live[0]!;
    const before = { t: receiver.hitsFor(t.link).length, l: receiver.hitsFor(l.link).length };
    const cells: [string, Promise<ApiResponse>][] = [
      ['live pair, test delivery', sys.http.post(`/merchant/v1/webhook-deliveries/${t.delivery}/resend`, {}, { headers: merchant.keys })],
      ['session, test delivery', sys.http.post(`/api/v1/webhook-deliveries/${t.delivery}/resend`, {}, { headers: bearer(session) })],
      ['session, test webhook', sys.http.post(`/api/v1/webhook-deliveries/${testWebhookDelivery}/resend`, {}, { headers: bearer(session) })],
      ['test pair, live delivery', sys.http.post(`/merchant/v1/webhook-deliveries/${l.delivery}/resend`, {}, { headers: merchant.testKeys })],
      [
        'session Pl-Mode test, live delivery',
        sys.http.post(`/api/v1/webhook-deliveries/${l.delivery}/resend`, {}, { headers: { ...bearer(session), ...TEST } }),
      ],
    ];
    for (const [cell, res] of await allAnswered(cells)) {
      expect({ cell, status: res.status, code: res.body?.error?.code }).toEqual({ cell, status: 404, code: 'common.err.not_found' });
    }
    // A resend in the right mode goes out after those: had any of them gone out, it would have arrived first.
    const ok = await sys.http.post(`/merchant/v1/webhook-deliveries/${t.delivery}/resend`, {}, { headers: merchant.testKeys });
    expect([ok.status, ok.body.id, ok.body.livemode]).toEqual([202, t.delivery, false]);
    const again = await receiver.nthFor(t.link, before.t + 1);
    expect(again.json.livemode).toBe(false);
    expect(again.headers['x-webhook-attempt']).toBe('1');
    expect(again.headers['x-webhook-id']).toBe(receiver.hitsFor(t.link)[0]!.headers['x-webhook-id']);
    const liveOk = await sys.http.post(`/api/v1/webhook-deliveries/${l.delivery}/resend`, {}, { headers: bearer(session) });
    expect([liveOk.status, liveOk.body.livemode]).toEqual([202, true]);
    expect((await receiver.nthFor(l.link, before.l + 1)).json.livemode).toBe(true);
    expect(receiver.hitsFor(t.link)).toHaveLength(before.t + 1);
  });
});

describe('rate limits per mode', () => {
  let limited: TestSystem;
  beforeAll(async () => {
    limited = await startSystem({
      env: { RATE_LIMIT_API_KEY_PER_MINUTE: '3', RATE_LIMIT_CASHIER_PER_MINUTE: '3', RATE_LIMIT_SESSION_PER_MINUTE: '3' },
    });
  }, 60_000);
  afterAll(() => limited?.stop());

  const spend = async (n: number, call: () => Promise<ApiResponse>): Promise<number[]> => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await call()).status);
    return statuses;
  };

  it("keeps an API key pair's budget per mode: the test pair spent, the live pair still answers, and the reverse", async () => {
    const { merchant } = await limited.merchantWithShop();
    const list = (keys: Headers) => () => limited.http.get('/merchant/v1/payment-links', { headers: keys });
    expect(await spend(3, list(merchant.testKeys))).toEqual([200, 200, 200]);
    expectError(await list(merchant.testKeys)(), 429, 'common.err.rate_limited');
    expect(await spend(3, list(merchant.keys))).toEqual([200, 200, 200]);
    expectError(await list(merchant.keys)(), 429, 'common.err.rate_limited');
  });

  it("keeps a cashier key's budget per mode for the same shop", async () => {
    const { shop } = await limited.merchantWithShop();
    const pay = (key: string) => () => limited.http.post('/api/v1/merchant/payments', { amount: 1 }, { headers: bearer(key) });
    expect(await spend(3, pay(shop.cashierKey))).toEqual([201, 201, 201]);
    expectError(await pay(shop.cashierKey)(), 429, 'common.err.rate_limited');
    expect(await spend(3, pay(shop.testCashierKey))).toEqual([201, 201, 201]);
    expectError(await pay(shop.testCashierKey)(), 429, 'common.err.rate_limited');
  });

  it("keeps one session's budget per mode", async () => {
    const { merchant } = await limited.merchantWithShop();
    // The password alone: `login` would spend two of the session's requests turning on a second factor.
    const token = (await limited.http.post('/api/v1/auth/login', { email: merchant.email, password: merchant.password })).body
      .session_token as string;
    const list = (headers: Headers) => () => limited.http.get('/api/v1/payment-links', { headers: { ...bearer(token), ...headers } });
    expect(await spend(3, list(TEST))).toEqual([200, 200, 200]);
    expectError(await list(TEST)(), 429, 'common.err.rate_limited');
    expect(await spend(3, list({}))).toEqual([200, 200, 200]);
    expectError(await list({ 'Pl-Mode': 'live' })(), 429, 'common.err.rate_limited');
  });
});
