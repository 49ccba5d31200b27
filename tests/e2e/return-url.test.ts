import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { sandboxPaymentId, startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { foreignRequests, launchBrowser, openTab, screenshot, type BuyerTab } from './browser';

/**
 * "Returning the buyer to the shop" (docs/product-decisions.md) in a real Chromium: a link that is over shows the way back to
 * the merchant's return_url, and a paid one goes there by itself. The shop is a tiny HTTP server on this machine
 * (an http return_url, which the test system allows like it allows private webhook targets).
 */

/** Longer than the page's 5 s before it goes back by itself, well under Jest's limit. */
const RETURN_WAIT_MS = 15_000;

let sys: TestSystem;
let browser: Browser;
let merchant: TestMerchant;
let shop: TestShop;
let shopSite: Server;
let shopOrigin: string;
/** What the shop's site was asked for: path and headers of every request. */
const visits: { path: string; headers: IncomingHttpHeaders }[] = [];
const tabs: BuyerTab[] = [];

beforeAll(async () => {
  shopSite = createServer((req, res) => {
    visits.push({ path: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><title>The shop</title><h1>Welcome back</h1>');
  });
  await new Promise<void>((resolve) => shopSite.listen(0, '127.0.0.1', resolve));
  shopOrigin = `http://127.0.0.1:${(shopSite.address() as AddressInfo).port}`;
  [sys, browser] = await Promise.all([startSystem(), launchBrowser()]);
  merchant = await sys.merchant();
  shop = await sys.shop(merchant.id);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await sys?.stop();
  await new Promise((resolve) => shopSite?.close(resolve));
});
afterEach(async () => {
  // The page talked to the gateway and, when it went back, to the shop; it broke no CSP rule.
  for (const tab of tabs.splice(0)) {
    expect(foreignRequests(tab, sys.baseUrl).filter((u) => new URL(u).origin !== shopOrigin)).toEqual([]);
    expect(tab.errors.filter((e) => /Content Security Policy|Refused to/i.test(e))).toEqual([]);
    await tab.close();
  }
});

const tab = async (locale: string): Promise<Page> => {
  const t = await openTab(browser, { locale });
  tabs.push(t);
  return t.page;
};

/** A link whose return_url names this test's own path on the shop's site. */
const createLink = async (path: string): Promise<{ id: string; returnUrl: string }> => {
  const returnUrl = `${shopOrigin}${path}?order=42&lang=x`;
  const res = await sys.http.post(
    '/merchant/v1/payment-links',
    { shop_id: shop.id, amount: '500.00', return_url: returnUrl },
    { headers: merchant.keys },
  );
  expect(res.status).toBe(201);
  expect(res.body.return_url).toBe(returnUrl);
  return { id: res.body.id as string, returnUrl };
};

const pay = async (id: string): Promise<void> => {
  expect((await sys.http.post(`/p/${id}/select`, { method: 'sbp' })).status).toBe(200);
  expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
};

const returnLink = (page: Page) => page.locator('[data-testid=return-to-shop]');

describe('the way back to the shop', () => {
  it('a paid page in Russian shows "Вернуться в магазин" and goes to the return_url by itself', async () => {
    const { id, returnUrl } = await createLink('/ru-paid');
    await pay(id);
    const page = await tab('ru-RU');
    // Listening before the page loads: the page itself is what navigates.
    const back = page.waitForURL(returnUrl, { timeout: RETURN_WAIT_MS });
    await page.goto(`${sys.baseUrl}/p/${id}`);
    await page.locator('[data-testid=final-paid]').waitFor();
    expect(await returnLink(page).innerText()).toBe('Вернуться в магазин');
    expect(await returnLink(page).getAttribute('href')).toBe(returnUrl);
    await screenshot(page, '10-paid-return-ru');
    await back;
    expect(await page.locator('h1').innerText()).toBe('Welcome back');
    const visit = visits.find((v) => v.path === '/ru-paid?order=42&lang=x');
    expect(visit).toBeDefined();
    // The checkout page sends no Referer: the link id stays between the buyer and the platform.
    expect(visit?.headers.referer).toBeUndefined();
  });

  it('an English page that sees the payment arrive shows "Return to the shop" and goes back by itself (the script)', async () => {
    const { id, returnUrl } = await createLink('/en-live');
    const page = await tab('en-US');
    await page.goto(`${sys.baseUrl}/p/${id}`);
    await page.locator('#method-form').waitFor();
    expect(await returnLink(page).count()).toBe(0);
    const back = page.waitForURL(returnUrl, { timeout: RETURN_WAIT_MS });
    await pay(id);
    await page.locator('[data-testid=final-paid]').waitFor({ timeout: RETURN_WAIT_MS });
    expect(await returnLink(page).innerText()).toBe('Return to the shop');
    await back;
    expect(visits.some((v) => v.path === '/en-live?order=42&lang=x')).toBe(true);
  });

  it.each([
    ['expired', 'ru-RU', 'Вернуться в магазин'],
    ['expired', 'en-US', 'Return to the shop'],
    ['canceled', 'ru-RU', 'Вернуться в магазин'],
    ['canceled', 'en-US', 'Return to the shop'],
  ] as const)('the %s page (%s) shows "%s", stays until the buyer follows it', async (status, locale, label) => {
    const path = `/${status}-${locale}`;
    const { id, returnUrl } = await createLink(path);
    if (status === 'canceled') {
      expect((await sys.http.post(`/merchant/v1/payment-links/${id}/cancel`, {}, { headers: merchant.keys })).status).toBe(200);
    } else {
      await sys.sql(`UPDATE links.payment_links SET created_at = now() - interval '1 hour', expires_at = now() - interval '1 second' WHERE id = $1`, [
        id,
      ]);
    }
    const page = await tab(locale);
    await page.goto(`${sys.baseUrl}/p/${id}`);
    await page.locator(`[data-testid=final-${status}]`).waitFor();
    expect(await returnLink(page).innerText()).toBe(label);
    // Nothing on the page would go anywhere by itself.
    expect(await page.locator('meta[http-equiv=refresh], [data-return-after-ms]').count()).toBe(0);
    await screenshot(page, `11-${status}-return-${locale}`);
    await Promise.all([page.waitForURL(returnUrl), returnLink(page).click()]);
    expect(visits.some((v) => v.path === `${path}?order=42&lang=x`)).toBe(true);
  });
});
