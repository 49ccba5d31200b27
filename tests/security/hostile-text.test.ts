import { HOSTILE_CHARACTERS, LINE_BREAKS } from '@pl/testing';
import { expectError, type ApiResponse } from '../support/http';
import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * The one text rule end to end: every refused character in every text field a merchant or a client sends is a
 * 400 validation_failed naming the field, in the one details shape, and nothing is stored. Free text keeps its
 * line breaks exactly, and the checkout page isolates merchant text with <bdi>.
 */
let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
let session: string;

beforeAll(async () => {
  // Login attempts here are many and all refused before any password check; the per-IP budget is not under test.
  sys = await startSystem({ env: { RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '100000' } });
  ({ merchant, shop } = await sys.merchantWithShop());
  session = await sys.login(merchant);
}, 60_000);
afterAll(() => sys?.stop());

const linkCount = async (): Promise<number> => Number((await sys.sql<{ n: string }>('SELECT count(*) AS n FROM links.payment_links'))[0]!.n);

/** A refusal in the one details shape, naming exactly `field`. */
const expectFieldRefused = (res: ApiResponse, field: string): void => {
  expectError(res, 400, 'common.err.validation_failed');
  expect(res.body.error.details).toEqual([{ field, code: expect.any(String), message: expect.any(String) }]);
  expect(res.body.error.message).toContain(field);
};

const createRoutes = (): [string, Record<string, string>, Record<string, unknown>][] => [
  ['/merchant/v1/payment-links', merchant.keys, { shop_id: shop.id }],
  ['/api/v1/payment-links', { Authorization: `Bearer ${session}` }, { shop_id: shop.id }],
  ['/api/v1/merchant/payments', { Authorization: `Bearer ${shop.cashierKey}` }, {}],
];

describe('create bodies', () => {
  const cases = HOSTILE_CHARACTERS.flatMap(([name, ch]) =>
    (['order_id', 'description'] as const).flatMap((field) => [0, 1, 2].map((route) => [name, field, route, ch] as const)),
  );

  it.each(cases)('%s in %s on create route %i is 400 naming the field, and stores nothing', async (_name, field, route, ch) => {
    const [path, headers, base] = createRoutes()[route]!;
    const before = await linkCount();
    // JSON.stringify writes a lone surrogate as the escape `\ud800` and NUL as `\u0000`, as a client's JSON would.
    const res = await sys.http.post(path, { ...base, amount: '10.00', [field]: `x${ch}y` }, { headers });
    expectFieldRefused(res, field);
    expect(await linkCount()).toBe(before);
  });

  it('a lone surrogate escape in the raw bytes reaches validation as itself, not as U+FFFD', async () => {
    const before = await linkCount();
    for (const escape of ['\\ud800', '\\udfff', '\\ud83d', 'a\\ude00b']) {
      const bytes = Buffer.from(`{"shop_id":${shop.id},"amount":"1.00","order_id":"${escape}"}`, 'latin1');
      const res = await fetch(`${sys.baseUrl}/merchant/v1/payment-links`, {
        method: 'POST',
        headers: { ...merchant.keys, 'content-type': 'application/json' },
        body: bytes,
      });
      const body = (await res.json()) as { error: { code: string; details: unknown } };
      expect({ status: res.status, body }).toEqual({
        status: 400,
        body: {
          error: expect.objectContaining({
            code: 'common.err.validation_failed',
            details: [{ field: 'order_id', code: 'custom', message: 'must be well-formed Unicode (no lone surrogates)' }],
          }),
        },
      });
    }
    expect(await linkCount()).toBe(before);
  });

  it('a surrogate encoded as raw UTF-8 bytes (not valid UTF-8) is 400 invalid_json, and stores nothing', async () => {
    const before = await linkCount();
    const bytes = Buffer.concat([
      Buffer.from(`{"shop_id":${shop.id},"amount":"1.00","order_id":"`),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('"}'),
    ]);
    const res = await fetch(`${sys.baseUrl}/merchant/v1/payment-links`, {
      method: 'POST',
      headers: { ...merchant.keys, 'content-type': 'application/json' },
      body: bytes,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('common.err.invalid_json');
    expect(await linkCount()).toBe(before);
  });

  it.each(LINE_BREAKS)('a description with a %s is stored and read back exactly as sent', async (_name, ch) => {
    const description = `Line one${ch}line two${ch}`;
    const created = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '5.00', description }, { headers: merchant.keys });
    expect(created.status).toBe(201);
    expect(created.body.description).toBe(description);
    const read = await sys.http.get(`/merchant/v1/payment-links/${created.body.id}`, { headers: merchant.keys });
    expect(read.body.description).toBe(description);
  });

  it.each(LINE_BREAKS)('an order_id with a %s is refused: only free text may break lines', async (_name, ch) => {
    const before = await linkCount();
    expectFieldRefused(
      await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '5.00', order_id: `a${ch}b` }, { headers: merchant.keys }),
      'order_id',
    );
    expect(await linkCount()).toBe(before);
  });

  it('refuses an empty order_id and an empty description alike; null means none for both', async () => {
    const before = await linkCount();
    for (const field of ['order_id', 'description']) {
      expectFieldRefused(
        await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '5.00', [field]: '' }, { headers: merchant.keys }),
        field,
      );
    }
    expect(await linkCount()).toBe(before);
    const none = await sys.http.post(
      '/merchant/v1/payment-links',
      { shop_id: shop.id, amount: '5.00', order_id: null, description: null },
      { headers: merchant.keys },
    );
    expect(none.status).toBe(201);
    expect(none.body).toMatchObject({ order_id: null, description: null });
  });

  it('keeps right-to-left text and emoji, which the rule allows', async () => {
    const res = await sys.http.post(
      '/merchant/v1/payment-links',
      { shop_id: shop.id, amount: '5.00', order_id: 'הזמנה-7 😀', description: 'مرحبا 🍵' },
      { headers: merchant.keys },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ order_id: 'הזמנה-7 😀', description: 'مرحبا 🍵' });
  });
});

/** Percent-encoding of a character as a query would carry it (a lone surrogate has no UTF-8, so it gets the bytes a careless encoder would write). */
const queryEncoded = (ch: string): string => {
  const unit = ch.charCodeAt(0);
  if (unit >= 0xd800 && unit <= 0xdfff) {
    return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
  }
  return encodeURIComponent(ch);
};

describe('list query', () => {
  it.each(HOSTILE_CHARACTERS)('%s in the order_id query is 400 naming order_id on both list routes', async (_name, ch) => {
    const encoded = queryEncoded(ch);
    for (const [path, headers] of [
      ['/merchant/v1/payment-links', merchant.keys],
      ['/api/v1/payment-links', { Authorization: `Bearer ${session}` }],
    ] as const) {
      const res = await sys.http.get(`${path}?order_id=a${encoded}b`, { headers });
      // A lone surrogate arrives as bytes that are not UTF-8 (`%ED%A0%80`): refused as in a body, never searched as text.
      expectFieldRefused(res, 'order_id');
    }
  });

  it('a cursor the links service cannot read is 400 in the same details shape', async () => {
    const res = await sys.http.get('/merchant/v1/payment-links?cursor=bm90LWEtY3Vyc29y', { headers: merchant.keys });
    expectError(res, 400, 'common.err.validation_failed');
    expect(res.body.error.details).toEqual([{ field: 'cursor', code: 'custom', message: 'is malformed' }]);
  });

  it('a control character in the cursor is refused by the gateway before it travels', async () => {
    expectFieldRefused(await sys.http.get('/merchant/v1/payment-links?cursor=a%00b', { headers: merchant.keys }), 'cursor');
  });
});

describe('login', () => {
  it.each(HOSTILE_CHARACTERS)('%s in the email or password is 400 naming the field, never a 500', async (_name, ch) => {
    for (const field of ['email', 'password'] as const) {
      const body = {
        email: merchant.email,
        password: merchant.password,
        [field]: field === 'email' ? `x${ch}${merchant.email}` : `${merchant.password}${ch}`,
      };
      const res = await sys.http.post('/api/v1/auth/login', body);
      expectFieldRefused(res, field);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });
});

describe('checkout page', () => {
  it('shows the shop name and the description inside <bdi>, and isolates the shop name in the title', async () => {
    const created = await sys.http.post(
      '/merchant/v1/payment-links',
      { shop_id: shop.id, amount: '5.00', description: 'שלום <b>tea</b>' },
      { headers: merchant.keys },
    );
    const page = await sys.http.get(`/p/${created.body.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<h1 id="shop-name"><bdi>[^<]+<\/bdi><\/h1>/);
    expect(page.text).toContain('<bdi>שלום &lt;b&gt;tea&lt;/b&gt;</bdi>');
    expect(page.text).toMatch(/<title>[^<]*\u2068[^<]+\u2069[^<]*<\/title>/);
  });
});
