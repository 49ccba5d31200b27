import fc from 'fast-check';
import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * Property-based fuzzing of every route's body, query and headers: whatever arrives, the answer is never
 * a 5xx, an error always has the documented shape, and a request that fails writes nothing.
 */
let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
let session: string;
let linkId: string;

beforeAll(async () => {
  sys = await startSystem();
  ({ merchant, shop } = await sys.merchantWithShop());
  session = await sys.login(merchant);
  linkId = (await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 1 }, { headers: merchant.keys })).body.id;
}, 60_000);
afterAll(() => sys?.stop());

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

const linkCount = async (): Promise<number> => {
  const rows = await sys.sql<{ n: string }>('SELECT count(*) AS n FROM links.payment_links');
  return Number(rows[0]!.n);
};

/** Values that stress parsers: wrong types, edge numbers, long and odd strings. */
const nasty = fc.oneof(
  fc.constantFrom(0, -1, 1e400, 10.005, 1.5, Number.MAX_SAFE_INTEGER + 2, '1e2', '  5', '', '0', 'NaN', null, true, [], {}),
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const createKeys = fc.constantFrom('shop_id', 'amount', 'order_id', 'description', 'expires_in_minutes', 'currency', '__proto__', 'constructor', 'x');
const createBody = fc.oneof(
  fc.dictionary(createKeys, nasty, { maxKeys: 6 }),
  // shop 1 is this system's first shop (a fresh database), so valid bodies really create links.
  fc.record({ shop_id: fc.oneof(fc.constant(1), nasty), amount: nasty }),
  fc.jsonValue(),
);
/** Raw text bodies: broken JSON, deep nesting, odd encodings. */
const rawBody = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.constantFrom('{', '{"amount":', '[[[[[[[[[[', '{"a":1,"a":1}', '\u0000', '{"amount":1}garbage', 'null', '"x"'),
  fc.nat({ max: 5000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
);
const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', '');
const headerValue = fc.string({ maxLength: 60 }).filter((s) => /^[\x20-\x7e]*$/.test(s));

const expectNoServerError = (res: { status: number; body: any; text: string }): void => {
  expect(res.status).toBeLessThan(500);
  if (res.status >= 400) {
    expect(typeof res.body?.error?.code).toBe('string');
    expect(typeof res.body?.error?.message).toBe('string');
    expect(res.text).not.toMatch(/\n\s+at /);
  }
};

const createRoutes = (): Array<[string, Record<string, string>]> => [
  ['/merchant/v1/payment-links', merchant.keys],
  ['/api/v1/payment-links', { Authorization: `Bearer ${session}` }],
  ['/api/v1/merchant/payments', { Authorization: `Bearer ${shop.cashierKey}` }],
];

it('create routes: any JSON body gives 201 or a documented 4xx, and a 4xx writes nothing', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(0, 1, 2), createBody, async (route, body) => {
      const [path, headers] = createRoutes()[route]!;
      const before = await linkCount();
      const res = await sys.http.post(path, body, { headers });
      expectNoServerError(res);
      expect(await linkCount()).toBe(res.status === 201 ? before + 1 : before);
    }),
    { numRuns: RUNS },
  );
});

it('create routes: any raw body and content type gives a documented 4xx or 201, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(0, 1, 2), rawBody, contentType, async (route, body, type) => {
      const [path, headers] = createRoutes()[route]!;
      const before = await linkCount();
      const res = await sys.http.call('POST', path, { body, headers, contentType: type || null });
      expectNoServerError(res);
      expect(await linkCount()).toBe(res.status === 201 ? before + 1 : before);
    }),
    { numRuns: RUNS },
  );
});

it('list routes: any query string gives 200 or 400 validation_failed', async () => {
  const query = fc.dictionary(
    fc.constantFrom('limit', 'cursor', 'status', 'shop_id', 'order_id', 'x'),
    fc.oneof(fc.string({ maxLength: 30 }), fc.integer().map(String)),
    { maxKeys: 4 },
  );
  await fc.assert(
    fc.asyncProperty(query, fc.boolean(), async (q, viaSession) => {
      const qs = new URLSearchParams(q).toString();
      const res = viaSession
        ? await sys.http.get(`/api/v1/payment-links?${qs}`, { headers: { Authorization: `Bearer ${session}` } })
        : await sys.http.get(`/merchant/v1/payment-links?${qs}`, { headers: merchant.keys });
      expectNoServerError(res);
      expect([200, 400]).toContain(res.status);
    }),
    { numRuns: RUNS },
  );
});

it('id routes, checkout and callbacks: any path id, body and signature gives no 5xx and changes no link', async () => {
  const id = fc.oneof(fc.uuid(), fc.string({ maxLength: 40 }).map(encodeURIComponent), fc.constant(linkId));
  await fc.assert(
    fc.asyncProperty(id, createBody, headerValue, async (pathId, body, signature) => {
      const before = (await sys.http.get(`/merchant/v1/payment-links/${linkId}`, { headers: merchant.keys })).body;
      const results = await Promise.all([
        sys.http.get(`/merchant/v1/payment-links/${pathId}`, { headers: merchant.keys }),
        sys.http.post(`/merchant/v1/payment-links/${pathId}/cancel`, body, { headers: merchant.keys }),
        sys.http.post(`/p/${pathId}/select`, body),
        sys.http.get(`/p/${pathId}/status`),
        sys.http.post('/callbacks/v1/sandbox', body, { headers: { 'X-Provider-Signature': signature } }),
        sys.http.post(`/merchant/v1/webhook-deliveries/${pathId}/resend`, body, { headers: merchant.keys }),
      ]);
      const [get, cancel, select, status, callback, resend] = results;
      for (const res of [get!, cancel!, select!, callback!, resend!]) expectNoServerError(res);
      // GET under /p is the buyer's page: a path that names no link is the friendly HTML 404 there.
      expect(status!.status).toBeLessThan(500);
      if (status!.status >= 400) expect(status!.headers.get('content-type') ?? '').toMatch(/text\/html|application\/json/);
      const after = (await sys.http.get(`/merchant/v1/payment-links/${linkId}`, { headers: merchant.keys })).body;
      // Only a well-formed cancel of this very link, or a valid selection, may move it.
      if (pathId !== linkId) expect(after).toEqual(before);
    }),
    { numRuns: RUNS },
  );
});

it('headers: any value of the credential, idempotency and request-id headers gives no 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(headerValue, headerValue, headerValue, headerValue, async (key, secret, idem, reqId) => {
      const res = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 1 }, {
        headers: { 'X-API-Key': key, 'X-API-Secret': secret, 'Idempotency-Key': idem, 'X-Request-Id': reqId },
      });
      expectNoServerError(res);
      const withKeys = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: 1 }, {
        headers: { ...merchant.keys, 'Idempotency-Key': idem, 'X-Request-Id': reqId, Authorization: key, Cookie: `sid=${secret}` },
      });
      expectNoServerError(withKeys);
    }),
    { numRuns: RUNS },
  );
});
