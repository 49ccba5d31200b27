import { paymentLink, paymentLinkPage, type PaymentLinkPage } from '@pl/contracts';
import { decodeCursor } from './cursor';
import type { LinkRecord } from './link';
import { toBuyerLinkView } from './buyer-view';
import { LINK_PAGE_BYTES_MAX, listedLink, toPaymentLink, toPaymentLinkPageJson, type LinkPage } from './link-view';
import { sampleLinkRecord } from './sample-link.fixture';

const NO_CHECKOUT = { methods: { sbp: true, crypto_networks: [] }, progress: null };
const BASE = 'https://pay.example.com';

const record = (over: Partial<LinkRecord> = {}): LinkRecord => sampleLinkRecord({ id: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b', ...over });

describe('toPaymentLink', () => {
  it('writes money as rouble strings with two decimals', () => {
    const view = toPaymentLink(record({ amount: 5, payerAmount: 5, merchantCredit: 5, platformRevenue: 0 }), BASE);
    expect([view.amount, view.payer_amount, view.merchant_credit, view.platform_revenue]).toEqual(['0.05', '0.05', '0.05', '0.00']);
    expect(toPaymentLink(record(), BASE).amount).toBe('1234.56');
  });

  it('writes dates in Moscow time with the +03:00 offset and null for an unpaid link', () => {
    const view = toPaymentLink(record(), BASE);
    expect(view.created_at).toBe('2026-11-22T10:15:00+03:00');
    expect(view.updated_at).toBe('2026-11-22T10:15:00+03:00');
    expect(view.expires_at).toBe('2026-11-23T10:15:00+03:00');
    expect(view.paid_at).toBeNull();
  });

  it('gives checkout_url and its aliases pay_url and paymentUrl the same value', () => {
    const view = toPaymentLink(record(), BASE);
    expect(view.checkout_url).toBe(`${BASE}/p/6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b`);
    expect(view.pay_url).toBe(view.checkout_url);
    expect(view.paymentUrl).toBe(view.checkout_url);
  });

  it('carries every field of the contract, null where unset, and nothing internal', () => {
    const view = toPaymentLink(record(), BASE);
    expect(paymentLink.strict().parse(view)).toEqual(view);
    expect(Object.keys(view).sort()).toEqual(Object.keys(paymentLink.shape).sort());
    for (const key of ['order_id', 'description', 'gateway_provider', 'qr', 'payer_crypto_amount'] as const) {
      expect(view[key]).toBeNull();
    }
    expect(view).not.toHaveProperty('merchant_id');
    expect(view).not.toHaveProperty('sbp_bps');
  });

  it('shows gateway fields once they are set', () => {
    const view = toPaymentLink(
      record({
        gatewayProvider: 'sandbox',
        network: 'USDT-TRC20',
        payerCryptoAmount: '12.345678',
        paidAt: new Date('2026-11-22T08:00:00Z'),
        status: 'paid',
      }),
      BASE,
    );
    expect(view).toMatchObject({ gateway_provider: 'sandbox', network: 'USDT-TRC20', payer_crypto_amount: '12.345678', status: 'paid' });
    expect(view.paid_at).toBe('2026-11-22T11:00:00+03:00');
  });
});

/** The page as the gateway gets it: the text parsed, checked against the contract. */
const toPaymentLinkPage = (page: { items: LinkRecord[]; hasMore: boolean }, base: string): PaymentLinkPage => {
  const listed: LinkPage = { items: page.items.map((r) => listedLink(r, base)), hasMore: page.hasMore };
  return paymentLinkPage.parse(JSON.parse(toPaymentLinkPageJson(listed)));
};

describe('toPaymentLinkPageJson', () => {
  it('carries the items once and points the cursor at the last item when there is more', () => {
    const items = [record(), record({ id: '7f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b', createdAtMicros: 5n })];
    const page = toPaymentLinkPage({ items, hasMore: true }, BASE);
    expect(paymentLinkPage.parse(page)).toEqual(page);
    expect(page.payment_links).toHaveLength(2);
    expect(decodeCursor(page.next_cursor ?? '')).toEqual({ createdAtMicros: 5n, id: '7f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b' });
  });

  it('writes payment_links last, where the gateway looks for it to add the payments alias', () => {
    const json = toPaymentLinkPageJson({ items: [listedLink(record(), BASE)], hasMore: false });
    expect(json.startsWith('{"has_more":false,"next_cursor":null,"payment_links":[')).toBe(true);
    expect(Object.keys(JSON.parse(json) as object)).toEqual(['has_more', 'next_cursor', 'payment_links']);
  });

  it('has no cursor on the last page', () => {
    expect(toPaymentLinkPage({ items: [record()], hasMore: false }, BASE).next_cursor).toBeNull();
    expect(toPaymentLinkPage({ items: [], hasMore: false }, BASE)).toEqual({ payment_links: [], has_more: false, next_cursor: null });
  });
});

describe('return_url', () => {
  it('is null when unset and carried as stored otherwise, in the link and the buyer-safe view', () => {
    expect(toPaymentLink(record(), BASE).return_url).toBeNull();
    const url = 'https://shop.example/thanks?order=42';
    expect(toPaymentLink(record({ returnUrl: url }), BASE).return_url).toBe(url);
    expect(toBuyerLinkView(record({ returnUrl: url }), 'Shop', BASE, NO_CHECKOUT).return_url).toBe(url);
    expect(toBuyerLinkView(record(), 'Shop', BASE, NO_CHECKOUT).return_url).toBeNull();
  });
});

describe('a page at its byte budget', () => {
  /** A link with the longest return_url (2048 code points of 4 bytes) and description. */
  const heavy = (n: number): LinkRecord =>
    record({
      id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      createdAtMicros: BigInt(1000 - n),
      description: '😀'.repeat(1024),
      returnUrl: `https://s/${'😀'.repeat(2038)}`,
    });

  it('stops before LINK_PAGE_BYTES_MAX, says more follow and points the cursor at the last link it kept', () => {
    const items = Array.from({ length: 100 }, (_, i) => heavy(i));
    const page = toPaymentLinkPage({ items, hasMore: false }, BASE);
    expect(page.payment_links.length).toBeGreaterThan(1);
    expect(page.payment_links.length).toBeLessThan(100);
    expect(page.payment_links.map((l) => l.id)).toEqual(items.slice(0, page.payment_links.length).map((l) => l.id));
    expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(LINK_PAGE_BYTES_MAX + 1024);
    expect(page.has_more).toBe(true);
    const last = items[page.payment_links.length - 1];
    expect(decodeCursor(page.next_cursor ?? '')).toEqual({ createdAtMicros: last?.createdAtMicros, id: last?.id });
  });

  it('always keeps one link, so paging never stalls', () => {
    const huge = record({ description: '😀'.repeat(1024 * 300) });
    expect(toPaymentLinkPage({ items: [huge, record()], hasMore: false }, BASE).payment_links).toHaveLength(1);
  });
});
