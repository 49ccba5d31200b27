import { randomUUID } from 'node:crypto';
import { subjects } from '@pl/contracts';
import { sampleLink, startHarness, type Harness, type Reply } from './harness';

/**
 * `return_url` at the gateway (docs/product-decisions.md, "Returning the buyer to the shop"): every create route checks it and
 * hands it to links; the buyer-safe view and the checkout page carry it. The harness runs with the default
 * WEBHOOK_ALLOW_PRIVATE_TARGETS=false, so only https is taken here.
 */
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

const URL_OK = 'https://shop.example/thanks?order=42';

const expectReturnUrlRefused = (res: Reply, message: string): void => {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 400, code: 'common.err.validation_failed' });
  expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'return_url', message })]);
  expect(h.calls.filter((c) => c.subject.startsWith('links.'))).toEqual([]);
};

describe('return_url on the create routes', () => {
  it('hands an https return_url to links and answers the link that carries it', async () => {
    h.on(subjects.linksCreate.name, async (payload) => sampleLink({ return_url: (payload as { return_url: string }).return_url }));
    const res = await h.request('POST', '/merchant/v1/payment-links', { headers: keys, body: { shop_id: 7, amount: '10.00', return_url: URL_OK } });
    expect(res.status).toBe(201);
    expect(res.body.return_url).toBe(URL_OK);
    expect(h.calls[0]?.payload).toEqual({
      shop_id: 7,
      amount_kopecks: 1000,
      order_id: null,
      description: null,
      expires_in_minutes: 1440,
      return_url: URL_OK,
    });
  });

  it('sends null to links when the body has none or null', async () => {
    await h.request('POST', '/merchant/v1/payment-links', { headers: keys, body: { shop_id: 7, amount: '1', return_url: null } });
    expect(h.calls[0]?.payload).toMatchObject({ return_url: null });
  });

  it.each([
    ['http, which this deployment does not allow', 'http://shop.example/thanks', 'must be an https URL'],
    ['javascript:', 'javascript:alert(document.cookie)', 'must be an https or http URL'],
    ['a relative URL', '/thanks', 'must be an absolute URL'],
    ['a user name and password', 'https://user:pw@shop.example/', 'must not contain a user name or password'],
    ['2049 characters', `https://s/${'a'.repeat(2049 - 10)}`, 'must be at most 2048 characters'],
    ['a control character', 'https://shop.example/\u0007', 'must not contain control characters'],
  ])('answers 400 naming return_url for %s (merchant API key)', async (_case, url, message) => {
    expectReturnUrlRefused(
      await h.request('POST', '/merchant/v1/payment-links', { headers: keys, body: { shop_id: 7, amount: '1', return_url: url } }),
      message,
    );
  });

  it('answers 400 naming return_url on the cashier route too, and 201 with an https one', async () => {
    const auth = { Authorization: `Bearer ${h.cashierKey(merchantId, 42)}` };
    expectReturnUrlRefused(
      await h.request('POST', '/api/v1/merchant/payments', { headers: auth, body: { amount: '1', return_url: 'http://shop.example/' } }),
      'must be an https URL',
    );
    h.reset();
    const res = await h.request('POST', '/api/v1/merchant/payments', { headers: auth, body: { amount: '1', return_url: URL_OK } });
    expect(res.status).toBe(201);
    expect(h.calls.find((c) => c.subject === subjects.linksCreate.name)?.payload).toMatchObject({ return_url: URL_OK });
  });

  it('checks the body before anything else is asked (a missing shop_id and a bad return_url are both named)', async () => {
    const res = await h.request('POST', '/merchant/v1/payment-links', { headers: keys, body: { amount: '1', return_url: 'ftp://x/' } });
    expect(res.status).toBe(400);
    expect(h.calls).toEqual([]);
  });
});

/** The checkout's part of a buyer view: the methods offered, no payment in progress. */
const CHECKOUT = { methods: { sbp: true, crypto_networks: [] }, payment_progress: null };

describe('return_url on the buyer side', () => {
  const paid = (id: string, returnUrl: string | null) => ({
    ...sampleLink({ id, status: 'paid', paid_at: '2026-11-22T12:05:00+03:00', return_url: returnUrl }),
    shop_name: 'Shop',
    ...CHECKOUT,
  });

  it('is in the buyer-safe view (/p/{id}/status), null when unset', async () => {
    const id = randomUUID();
    h.on(subjects.linksPublicGet.name, async () => paid(id, URL_OK));
    expect((await h.request('GET', `/p/${id}/status`)).body).toMatchObject({ id, return_url: URL_OK });
    h.on(subjects.linksPublicGet.name, async () => paid(id, null));
    expect((await h.request('GET', `/p/${id}/status`)).body).toMatchObject({ id, return_url: null });
  });

  it('shows the way back on a paid page and refreshes to it, escaped, under the page CSP', async () => {
    const id = randomUUID();
    const url = 'https://shop.example/back?a=1&b="x"';
    h.on(subjects.linksPublicGet.name, async () => paid(id, url));
    const res = await h.request('GET', `/p/${id}?lang=en`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<meta http-equiv="refresh" content="5; url=https://shop.example/back?a=1&amp;b=%22x%22">');
    expect(res.text).toContain('href="https://shop.example/back?a=1&amp;b=&quot;x&quot;" rel="noreferrer" data-testid="return-to-shop"');
    expect(res.text).toContain('>Return to the shop</a>');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('shows the way back on an expired page without sending the buyer anywhere', async () => {
    const id = randomUUID();
    h.on(subjects.linksPublicGet.name, async () => ({
      ...sampleLink({ id, status: 'expired', return_url: URL_OK }),
      shop_name: 'Shop',
      ...CHECKOUT,
    }));
    const res = await h.request('GET', `/p/${id}?lang=ru`);
    expect(res.text).toContain('>Вернуться в магазин</a>');
    expect(res.text).not.toContain('http-equiv="refresh"');
  });
});
