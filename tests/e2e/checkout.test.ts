import { randomUUID } from 'node:crypto';
import { createClient } from '@pl/client';
import { documented } from '../support/openapi-validator';
import type { Browser, Page } from 'playwright-core';
import { sandboxPaymentId, startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { checkedTabs, launchBrowser, openTab, screenshot, scrollsSideways } from './browser';

/** Waits for the page to change by itself (polling), well under Jest's limit. */
const SELF_UPDATE_MS = 15_000;

let sys: TestSystem;
let browser: Browser;
let merchant: TestMerchant;
/** The buyer pays the fee; crypto 1 %, SBP 3 %, so choosing SBP visibly changes the amount. */
let shop: TestShop;

beforeAll(async () => {
  [sys, browser] = await Promise.all([startSystem(), launchBrowser()]);
  merchant = await sys.merchant();
  shop = await sys.shop(merchant.id, { feePayer: 'client', cryptoBps: 100, sbpBps: 300 });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await sys?.stop();
});
/** Every tab is checked after each test: it talked to nobody but the gateway, broke no CSP rule, threw nothing. */
const openCheckedTab = checkedTabs(
  () => browser,
  () => sys.baseUrl,
);

const tab = async (options: Parameters<typeof openTab>[1] = {}): Promise<Page> => {
  const t = await openCheckedTab(options);
  return t.page;
};

/** The merchant API as the merchant's integration calls it, typed from docs/openapi.json (@pl/client). */
const merchantApi = () => documented(createClient(sys.baseUrl, { auth: { kind: 'apiKey', key: merchant.apiKey, secret: merchant.apiSecret } }));

const createLink = async (body: { description?: string } = {}): Promise<string> => {
  const { data, response } = await merchantApi().POST('/merchant/v1/payment-links', {
    body: { shop_id: shop.id, amount: '1000.00', description: 'Заказ №1042: кофе и круассан', order_id: `o-${randomUUID()}`, ...body },
  });
  expect(response.status).toBe(201);
  return data!.id;
};

/** Moves the link's deadline into the past in the database (created_at too: the table keeps expires_at after it). */
const expireNow = (id: string) =>
  sys.sql(`UPDATE links.payment_links SET created_at = now() - interval '1 hour', expires_at = now() - interval '1 second' WHERE id = $1`, [id]);

const merchantView = async (id: string) => {
  const { data, error } = await merchantApi().GET('/merchant/v1/payment-links/{id}', { params: { path: { id } } });
  if (!data) throw new Error(`GET /merchant/v1/payment-links/${id}: ${JSON.stringify(error)}`);
  return data;
};

const open = async (page: Page, path: string) => {
  const res = await page.goto(sys.baseUrl + path);
  if (!res) throw new Error(`no response for ${path}`);
  return res;
};

const text = (page: Page, selector: string): Promise<string> => page.locator(selector).innerText();
/** Waits for the live region to say `message` (a string waitForFunction would need eval, which the CSP forbids). */
const announced = (page: Page, message: string): Promise<void> =>
  page.locator('#announcer', { hasText: new RegExp(`^${message}$`) }).waitFor({ state: 'attached' });
/** Amounts are typeset with no-break spaces so they never wrap mid-number. */
const nb = (s: string): string => s.replace(/ /g, '\u00a0');

describe('the buyer checkout page at /p/{id}', () => {
  it('shows the shop, amount with fee and a countdown; SBP shows a QR with the recomputed amount; payment shows success by itself', async () => {
    const id = await createLink();
    const page = await tab({ locale: 'ru-RU' });
    const res = await open(page, `/p/${id}`);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toMatch(/^text\/html/);
    expect(res.headers()['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'; style-src 'self'/);
    expect(await page.getAttribute('html', 'lang')).toBe('ru');
    expect(await text(page, 'h1')).toBe('Test shop');
    expect(await text(page, '.description')).toContain('Заказ №1042: кофе и круассан');
    // Before a choice the crypto rate applies: 1 000 + 1 %.
    expect(await text(page, '[data-testid=payer-amount]')).toBe(nb('1 010,00 ₽'));
    expect(await text(page, '[data-testid=fee]')).toBe(nb('10,00 ₽'));
    expect(await text(page, '#countdown')).toMatch(/^23:59:[0-5]\d$/);
    await screenshot(page, '01-pending-ru');

    await page.getByLabel('СБП — Система быстрых платежей').check();
    await page.getByRole('button', { name: 'Показать реквизиты' }).click();
    await page.locator('#details[data-method=sbp]').waitFor();
    // Focus goes to the new details so keyboard and screen-reader users land on them.
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('details-heading');
    expect(await text(page, '[data-testid=payer-amount]')).toBe(nb('1 030,00 ₽'));
    expect(await text(page, '[data-testid=fee]')).toBe(nb('30,00 ₽'));
    expect(await text(page, '[data-testid=send-amount]')).toBe(nb('1 030,00 ₽'));
    const link = await merchantView(id);
    expect(link).toMatchObject({ network: 'SBP', payer_amount: '1030.00' });
    expect(await text(page, '#deposit')).toBe(link.deposit_address);
    expect(await page.locator('svg.qr-code').isVisible()).toBe(true);
    expect((await page.locator('svg.qr-code').boundingBox())!.width).toBeGreaterThan(150);
    expect(await page.getAttribute('a.button', 'href')).toBe(link.qr);
    await screenshot(page, '02-sbp-details-ru');

    expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
    await page.locator('[data-testid=final-paid]').waitFor({ timeout: SELF_UPDATE_MS });
    expect(await text(page, '#final-heading')).toBe('Оплата получена');
    const paidAt = (await merchantView(id)).paid_at as string;
    expect(await page.getAttribute('[data-testid=paid-at]', 'datetime')).toBe(paidAt);
    expect(await text(page, '[data-testid=paid-at]')).toMatch(/\d{4} г\..*\d{2}:\d{2} \(по московскому времени\)$/);
    expect(await page.locator('#method-form').count()).toBe(0);
    await announced(page, 'Оплата получена');
    await screenshot(page, '03-paid-ru');
  });

  it('in English: a crypto network shows the exact coin amount and address, the method can change while pending, then payment succeeds', async () => {
    const id = await createLink({ description: 'Order 77' });
    const page = await tab({ locale: 'en-US' });
    await open(page, `/p/${id}`);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await text(page, '[data-testid=payer-amount]')).toBe(nb('1,010.00 ₽'));

    await page.getByLabel('USDT TRC-20 (Tron)').check();
    await page.getByRole('button', { name: 'Show payment details' }).click();
    await page.locator('#details[data-method="USDT-TRC20"]').waitFor();
    let link = await merchantView(id);
    expect(link).toMatchObject({ network: 'USDT-TRC20', payer_currency: 'USDT', payer_amount: '1010.00' });
    expect(await text(page, '#send-amount')).toBe(`${link.payer_crypto_amount}\u00a0USDT`);
    expect(await page.getAttribute('#send-amount + button.copy', 'data-copy')).toBe(link.payer_crypto_amount);
    expect(await text(page, '#deposit')).toBe(link.deposit_address);
    expect(link.deposit_address).toMatch(/^T/);
    expect(await page.locator('svg.qr-code').isVisible()).toBe(true);
    await screenshot(page, '04-crypto-details-en');

    // The copy button puts the exact address on the clipboard and says so.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sys.baseUrl });
    await page.getByRole('button', { name: 'Copy: Deposit address' }).click();
    await announced(page, 'Copied');

    await page.getByLabel('Bitcoin BTC').check();
    await page.getByRole('button', { name: 'Change payment method' }).click();
    await page.locator('#details[data-method="BTC-BTC"]').waitFor();
    link = await merchantView(id);
    expect(link.network).toBe('BTC-BTC');
    expect(await text(page, '#deposit')).toBe(link.deposit_address);
    expect(await text(page, '#send-amount')).toBe(`${link.payer_crypto_amount}\u00a0BTC`);

    expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
    await page.locator('[data-testid=final-paid]').waitFor({ timeout: SELF_UPDATE_MS });
    expect(await text(page, '#final-heading')).toBe('Payment received');
    await screenshot(page, '05-paid-en');
  });

  it('can be used with the keyboard alone: choose a method with arrows and space, submit with Enter', async () => {
    const id = await createLink();
    const page = await tab({ locale: 'en-GB' });
    await open(page, `/p/${id}`);
    await page.locator('#method-sbp').focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Enter');
    await page.locator('#details[data-method=sbp]').waitFor();
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('details-heading');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.getAttribute("aria-label")')).toBe('Copy: SBP payment ID');
  });

  it('shows a final view with no way to pay for an expired link', async () => {
    const id = await createLink();
    await expireNow(id);
    const page = await tab({ locale: 'ru-RU' });
    const res = await open(page, `/p/${id}`);
    expect(res.status()).toBe(200);
    await page.locator('[data-testid=final-expired]').waitFor();
    expect(await text(page, '#final-heading')).toBe('Срок оплаты истёк');
    expect(await page.locator('#method-form, #details, #countdown, button').count()).toBe(0);
    await screenshot(page, '06-expired-ru');
  });

  it('turns into the expired view by itself when the link expires while the buyer looks at it', async () => {
    const id = await createLink();
    const page = await tab({ locale: 'en-US' });
    await open(page, `/p/${id}`);
    await page.locator('#method-form').waitFor();
    await expireNow(id);
    await page.locator('[data-testid=final-expired]').waitFor({ timeout: SELF_UPDATE_MS });
    expect(await page.locator('#method-form').count()).toBe(0);
  });

  it('shows a final view with no way to pay for a canceled link', async () => {
    const id = await createLink();
    const cancel = await merchantApi().POST('/merchant/v1/payment-links/{id}/cancel', { params: { path: { id } }, body: {} });
    expect(cancel.response.status).toBe(200);
    expect(cancel.data?.status).toBe('canceled');
    const page = await tab({ locale: 'en-US' });
    await open(page, `/p/${id}`);
    await page.locator('[data-testid=final-canceled]').waitFor();
    expect(await text(page, '#final-heading')).toBe('This payment was canceled');
    expect(await page.locator('#method-form, #details, button').count()).toBe(0);
    await screenshot(page, '07-canceled-en');
  });

  it('fits a 360 px wide phone without horizontal scrolling, before and after choosing a crypto network', async () => {
    const id = await createLink({ description: 'Очень длинное описание заказа без пробелов: ' + 'х'.repeat(120) });
    const page = await tab({ locale: 'ru-RU', width: 360, height: 740 });
    await open(page, `/p/${id}`);
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, '08-phone-pending-ru');
    await page.getByLabel('USDT ERC-20 (Ethereum)').check();
    await page.getByRole('button', { name: 'Показать реквизиты' }).click();
    await page.locator('#details[data-method="USDT-ERC20"]').waitFor();
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, '09-phone-crypto-ru');
  });

  it('switches language with the switch and remembers the choice', async () => {
    const id = await createLink();
    const page = await tab({ locale: 'ru-RU' });
    await open(page, `/p/${id}`);
    await page.getByRole('link', { name: 'English' }).click();
    await page.waitForURL(`**/p/${id}?lang=en`);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.getAttribute('[aria-current=true]', 'lang')).toBe('en');
    await open(page, `/p/${id}`);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await text(page, '#method-heading')).toBe('Payment method');
  });

  it.each([
    ['a malformed id', '/p/not-a-link'],
    ['an unknown id', `/p/${randomUUID()}`],
    ['a path under /p that names nothing', '/p/whatever/else'],
    ['the bare /p', '/p'],
  ])('answers %s with a friendly HTML 404 page', async (_case, path) => {
    const page = await tab({ locale: 'en-US', width: 360, height: 640 });
    const res = await open(page, path);
    expect(res.status()).toBe(404);
    expect(res.headers()['content-type']).toMatch(/^text\/html/);
    expect(res.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(await text(page, 'h1')).toBe('Payment link not found');
    const body = await page.content();
    expect(body).not.toMatch(/"error"|\bat .+\.(ts|js):\d+/);
    expect(await scrollsSideways(page)).toBe(false);
    if (path === '/p/not-a-link') await screenshot(page, '10-not-found-en');
  });
});

describe('what the page serves besides HTML', () => {
  it('answers the status poll with the buyer-safe JSON view and keeps the merchant API JSON', async () => {
    const id = await createLink();
    const status = await sys.http.get(`/p/${id}/status`);
    expect(status.status).toBe(200);
    expect(status.headers.get('cache-control')).toBe('no-store');
    expect(status.body).toMatchObject({ id, status: 'pending', shop_name: 'Test shop' });
    for (const field of ['merchant_credit', 'platform_revenue', 'fee_percent_bp', 'order_id']) expect(status.body).not.toHaveProperty(field);
    const missing = await sys.http.get(`/p/${randomUUID()}/status`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toMatch(/not_found$/);
    const api = await sys.http.get('/merchant/v1/nothing-here', { headers: merchant.keys });
    expect(api.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('serves its script and stylesheet from the gateway itself, cacheable by version', async () => {
    const id = await createLink();
    const page = await sys.http.get(`/p/${id}`);
    const hrefs = [...page.text.matchAll(/(?:src|href)="(\/p\/assets\/[^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    expect(hrefs).toHaveLength(2);
    for (const href of hrefs) {
      const res = await sys.http.get(href);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toContain('immutable');
      expect(res.headers.get('content-type')).toMatch(/^text\/(javascript|css)/);
    }
    expect(page.text).not.toMatch(/<script>|<style|style="| on[a-z]+="/);
  });
});
