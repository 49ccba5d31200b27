import { startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';

/**
 * A full page of the fullest links: 100 links whose order_id and description are at their limits in 4-byte
 * characters. With the links twice on the bus (`payment_links` and `payments`) this reply passed NATS's 1 MiB
 * and the merchant got a 503 after the bus time-out; the links now cross the bus once.
 */
const FULL_PAGE = 100;
const HEAVY = '🍵';
const ORDER_ID_MAX = 128;
const DESCRIPTION_MAX = 1024;

let sys: TestSystem;
let merchant: TestMerchant;
let shop: TestShop;
const created: string[] = [];

beforeAll(async () => {
  sys = await startSystem();
  ({ merchant, shop } = await sys.merchantWithShop());
  // Ten at a time: the page is newest first, so the expected order comes from the links' own created_at.
  for (let batch = 0; batch < FULL_PAGE / 10; batch += 1) {
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const n = String(batch * 10 + i).padStart(3, '0');
        return sys.http.post(
          '/merchant/v1/payment-links',
          {
            shop_id: shop.id,
            amount: '99999999.99',
            order_id: n + HEAVY.repeat(ORDER_ID_MAX - n.length),
            description: HEAVY.repeat(DESCRIPTION_MAX),
          },
          { headers: merchant.keys },
        );
      }),
    );
    for (const r of replies) {
      expect(r.status).toBe(201);
      created.push(r.body.id as string);
    }
  }
});
afterAll(() => sys?.stop());

describe('a full page of links at their longest', () => {
  it('answers 200 with payment_links and payments equal, every link whole', async () => {
    const res = await sys.http.get(`/merchant/v1/payment-links?limit=${FULL_PAGE}`, { headers: merchant.keys });
    expect(res.status).toBe(200);
    expect(res.body.payment_links).toHaveLength(FULL_PAGE);
    expect(res.body.payments).toEqual(res.body.payment_links);
    expect(res.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(new Set(res.body.payment_links.map((l: { id: string }) => l.id))).toEqual(new Set(created));
    for (const link of res.body.payment_links as { order_id: string; description: string }[]) {
      expect(Array.from(link.order_id)).toHaveLength(ORDER_ID_MAX); // code points, as the limit counts them
      expect(link.description).toBe(HEAVY.repeat(DESCRIPTION_MAX));
    }
    // Twice the links in one HTTP body: more than one NATS message could hold.
    expect(Buffer.byteLength(res.text)).toBeGreaterThan(1024 * 1024);
    process.stdout.write(`full page of ${FULL_PAGE} links: HTTP body ${Buffer.byteLength(res.text)} B\n`);
  });

  it('answers the same page to a dashboard session', async () => {
    const token = await sys.login(merchant);
    const res = await sys.http.get(`/api/v1/payment-links?limit=${FULL_PAGE}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.body.payment_links).toHaveLength(FULL_PAGE);
    expect(res.body.payments).toEqual(res.body.payment_links);
  });
});
