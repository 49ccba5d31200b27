import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { CRYPTO_NETWORKS } from '@pl/contracts';
import { StandInProvider } from '../support/stand-in-provider';
import { startSystem, type TestMerchant, type TestSystem } from '../support/system';
import { expectAccessible, foreignRequests, launchBrowser, openTab, screenshot, scrollsSideways, type BuyerTab, type TabOptions } from './browser';

/**
 * The checkout of a live link paid through a real provider (docs/providers.md, "The checkout"), in real Chromium:
 * only the methods the shop has on and the provider takes now, the network warning, a payment confirming, what
 * remains of a part payment, the bank app link on a phone only, and "unavailable for now" when the provider is down.
 * The live provider is a stand-in implementing the provider interface, steered by the test.
 */

const PHONE: TabOptions = { width: 360, height: 740 };
/** Waits for the page to change by itself (polling), well under Jest's limit. */
const SELF_UPDATE_MS = 15_000;
const EVERY_METHOD = { sbp: true, networks: CRYPTO_NETWORKS.map((network) => ({ network, minAmount: null, maxAmount: null })) };

const provider = new StandInProvider('heleket', 'checkout-providers-callback-secret');
let sys: TestSystem;
let browser: Browser;
let merchant: TestMerchant;
let session: string;
const tabs: BuyerTab[] = [];

beforeAll(async () => {
  [sys, browser] = await Promise.all([startSystem({ liveProvider: provider }), launchBrowser()]);
  merchant = await sys.merchant();
  session = await sys.login(merchant);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await sys?.stop();
});
beforeEach(() => {
  provider.mode = { kind: 'up' };
  provider.methods = EVERY_METHOD;
});
afterEach(async () => {
  for (const t of tabs.splice(0)) {
    expect(foreignRequests(t, sys.baseUrl)).toEqual([]);
    expect(t.errors.filter((e) => /Content Security Policy|Refused to/i.test(e))).toEqual([]);
    await t.close();
  }
});

const tab = async (options: TabOptions): Promise<Page> => {
  const t = await openTab(browser, options);
  tabs.push(t);
  return t.page;
};

/** A shop taking `methods`, and a live link of it. */
const linkOfShop = async (methods: { sbp?: boolean; crypto_networks?: string[] }): Promise<string> => {
  const shop = await sys.shop(merchant.id);
  const patched = await sys.http.call('PATCH', `/api/v1/shops/${shop.id}`, {
    body: { payment_methods: methods },
    headers: { Authorization: `Bearer ${session}` },
  });
  expect(patched.status).toBe(200);
  const res = await sys.http.post(
    '/merchant/v1/payment-links',
    { shop_id: shop.id, amount: '1000.00', order_id: `o-${randomUUID()}` },
    { headers: merchant.keys },
  );
  expect(res.status).toBe(201);
  return res.body.id as string;
};

const open = async (page: Page, id: string): Promise<void> => {
  const res = await page.goto(`${sys.baseUrl}/p/${id}`);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'; style-src 'self'/);
};

const callback = (orderId: string, status: 'confirming' | 'partially_paid', remaining?: string) => {
  const signed = provider.callback({
    order_id: orderId,
    gateway_payment_id: StandInProvider.paymentIdOf(orderId),
    status,
    ...(remaining === undefined ? {} : { remaining_crypto_amount: remaining }),
  });
  return sys.http.post('/callbacks/v1/heleket', signed.body, { headers: signed.headers });
};

describe('the checkout of a live link at a real provider', () => {
  it('on a phone, in Russian: offers only what the shop and the provider take, warns about the network, then shows confirming and the remainder by itself', async () => {
    provider.methods = { sbp: true, networks: [{ network: 'USDT-TRC20', minAmount: '1', maxAmount: '1000' }] };
    const id = await linkOfShop({ sbp: false, crypto_networks: ['USDT-TRC20', 'BTC-BTC'] });
    const page = await tab({ locale: 'ru-RU', ...PHONE });
    await open(page, id);
    // SBP is off at the shop, BTC not taken by the provider now: one network is left.
    expect(await page.locator('input[name=method]').count()).toBe(1);
    await page.getByLabel('USDT TRC-20 (Tron)').check();
    await page.getByRole('button', { name: 'Показать реквизиты' }).click();
    await page.locator('#details[data-method="USDT-TRC20"]').waitFor();
    expect(await page.locator('[data-testid=network-warning]').innerText()).toMatch(/^Отправляйте только в сети TRC-20/);
    expect(await scrollsSideways(page)).toBe(false);
    await expectAccessible(page);
    await screenshot(page, 'providers-01-crypto-phone-ru');

    expect((await callback(`${id}-1`, 'confirming')).status).toBe(200);
    await page.locator('[data-testid=waiting]', { hasText: 'ждёт подтверждений сети' }).waitFor({ timeout: SELF_UPDATE_MS });
    expect((await callback(`${id}-1`, 'partially_paid', '3.250000')).status).toBe(200);
    await page.locator('[data-testid=remainder]').waitFor({ timeout: SELF_UPDATE_MS });
    expect(await page.locator('#remaining').innerText()).toMatch(/^3[.,]25/);
    expect(await scrollsSideways(page)).toBe(false);
    await expectAccessible(page);
    await screenshot(page, 'providers-02-remainder-phone-ru');
  });

  it('in English: a method whose provider is down says it is unavailable for now and the others stay offered; the bank app link is for phones', async () => {
    const id = await linkOfShop({ sbp: true, crypto_networks: ['USDT-TON'] });
    const page = await tab({ locale: 'en-US' });
    await open(page, id);
    provider.mode = { kind: 'down' };
    await page.getByLabel('USDT TON').check();
    await page.getByRole('button', { name: 'Show payment details' }).click();
    await page.locator('#method-error', { hasText: 'This payment method is unavailable for now' }).waitFor();
    expect(await page.locator('input[name=method]:enabled').count()).toBe(2);
    await expectAccessible(page);
    await screenshot(page, 'providers-03-unavailable-en');

    provider.mode = { kind: 'up' };
    await page.getByLabel(/^SBP/).check();
    await page.getByRole('button', { name: 'Show payment details' }).click();
    await page.locator('#details[data-method=sbp]').waitFor();
    // A computer's buyer scans the QR: the app link is there for phones only.
    expect(await page.locator('[data-testid=app-link]').isVisible()).toBe(false);
    const phone = await tab({ locale: 'en-US', ...PHONE });
    await open(phone, id);
    expect(await phone.locator('[data-testid=app-link]').isVisible()).toBe(true);
    expect(await phone.locator('[data-testid=app-link]').innerText()).toBe('Open in bank app');
  });
});
