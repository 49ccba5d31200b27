import { randomUUID } from 'node:crypto';
import { fitShopPage, SHOP_PAGE_BYTES_MAX } from './list-shops';
import type { Shop } from './shop';

const shop = (id: number, webhookUrl: string | null): Shop => ({
  id,
  merchantId: randomUUID(),
  name: 'Shop',
  status: 'approved',
  feePayer: 'merchant',
  cryptoBps: 100,
  sbpBps: 100,
  webhookEvents: ['payment.succeeded'],
  paymentMethods: { sbp: true, crypto_networks: ['USDT-TRC20', 'USDT-ERC20', 'USDT-TON', 'BTC-BTC', 'ETH-ETH', 'TON-TON'] },
  webhookUrl,
  hasWebhookSecret: true,
  previousSecretValidUntil: null,
  payoutSchedules: { live: null, test: null },
  createdAt: new Date(),
  updatedAt: new Date(),
});

/** A normalized URL at its longest: 2048 characters, each percent-encoded as 9 bytes. */
const longestUrl = `https://example.com/${'%E4%B8%AD'.repeat(2048)}`;

describe('fitShopPage', () => {
  it('keeps up to the limit and says whether the extra row exists', () => {
    const rows = Array.from({ length: 4 }, (_, i) => shop(4 - i, 'https://example.com/hook'));
    expect(fitShopPage(rows, 3)).toEqual({ items: rows.slice(0, 3), hasMore: true });
    expect(fitShopPage(rows, 4)).toEqual({ items: rows, hasMore: false });
    expect(fitShopPage([], 10)).toEqual({ items: [], hasMore: false });
  });

  it('stops a page of shops with the longest webhook URLs before it outgrows the byte budget, and says more follow', () => {
    const rows = Array.from({ length: 101 }, (_, i) => shop(101 - i, longestUrl));
    const page = fitShopPage(rows, 100);
    expect(page.hasMore).toBe(true);
    expect(page.items.length).toBeGreaterThan(1);
    expect(page.items.length).toBeLessThan(100);
    expect(page.items).toEqual(rows.slice(0, page.items.length));
    expect(Buffer.byteLength(JSON.stringify(page.items))).toBeLessThanOrEqual(SHOP_PAGE_BYTES_MAX + 1024);
  });

  it('always keeps at least one shop, so paging never stalls', () => {
    expect(fitShopPage([shop(1, longestUrl.repeat(40))], 100).items).toHaveLength(1);
  });
});
