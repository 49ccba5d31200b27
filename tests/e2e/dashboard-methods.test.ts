import type { Browser, Page } from 'playwright-core';
import type { TestMerchant, TestSystem } from '../support/system';
import { foreignRequests, openTab, type BuyerTab } from './browser';
import { expectAccessible, expectFits, h1, PHONE, startDashboard, stopDashboard, words } from './dashboard-kit';

/**
 * The dashboard's part of real providers (docs/dashboard.md): a shop's payment methods edited in its settings, and a
 * link's payment attempts on its page. One combination (Russian on a 360 px phone, the narrowest the pages must fit).
 */

let sys: TestSystem;
let browser: Browser;
let merchant: TestMerchant;
const tabs: BuyerTab[] = [];
const t = words('ru');

beforeAll(async () => {
  ({ sys, browser } = await startDashboard());
  merchant = await sys.merchant();
}, 60_000);
afterAll(() => stopDashboard({ sys, browser }));
afterEach(async () => {
  for (const tab of tabs.splice(0)) {
    expect(foreignRequests(tab, sys.baseUrl)).toEqual([]);
    expect(tab.errors.filter((e) => /Content Security Policy|Refused to|Uncaught/i.test(e))).toEqual([]);
    await tab.close();
  }
});

const signedIn = async (): Promise<Page> => {
  const tab = await openTab(browser, { locale: 'ru-RU', ...PHONE });
  tabs.push(tab);
  const page = tab.page;
  await page.goto(`${sys.baseUrl}/dashboard/login`);
  await page.getByLabel(t('email')).fill(merchant.email);
  await page.getByLabel(t('password')).fill(merchant.password);
  await page.getByRole('button', { name: t('signIn'), exact: true }).click();
  await h1(page)
    .filter({ hasText: t('homeTitle') })
    .waitFor();
  return page;
};

const open = async (page: Page, path: string): Promise<void> => {
  await page.goto(sys.baseUrl + path);
  await h1(page).waitFor();
  await page.locator('.loading').first().waitFor({ state: 'detached' });
};

describe('payment providers in the dashboard, ru at 360 px', () => {
  it("edits the shop's payment methods (one must stay on) and lists a link's payment attempts", async () => {
    const shop = await sys.shop(merchant.id);
    const page = await signedIn();
    await open(page, `/dashboard/shops/${shop.id}`);
    const form = page.getByTestId('payment-methods');
    // A new shop takes SBP and all six networks.
    expect(await form.getByRole('checkbox', { checked: true }).count()).toBe(7);
    for (const network of ['USDT-ERC20', 'USDT-TON', 'BTC-BTC', 'ETH-ETH', 'TON-TON']) await form.locator(`input[value="${network}"]`).uncheck();
    await form.getByLabel(t('sbpMethod')).uncheck();
    await form.locator('input[value="USDT-TRC20"]').uncheck();
    // Nothing left on: said at once, and nothing can be saved.
    await form.getByText(t('oneMethodNeeded')).waitFor();
    expect(await form.getByRole('button', { name: t('savePaymentMethods') }).isDisabled()).toBe(true);
    await form.locator('input[value="USDT-TRC20"]').check();
    await form.getByRole('button', { name: t('savePaymentMethods') }).click();
    await form.getByText(t('paymentMethodsSaved')).waitFor();
    const saved = await sys.http.get(`/merchant/v1/shops/${shop.id}`, { headers: merchant.keys });
    expect(saved.body.payment_methods).toEqual({ sbp: false, crypto_networks: ['USDT-TRC20'] });
    await expectAccessible(page);
    await expectFits(page);

    const created = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '300.00' }, { headers: merchant.keys });
    const id = created.body.id as string;
    expect((await sys.http.post(`/p/${id}/select`, { method: 'crypto', network: 'USDT-TRC20' })).status).toBe(200);
    await open(page, `/dashboard/links/${id}`);
    const attempts = page.getByTestId('payment-attempts');
    await attempts.getByText(`sbx_${id}`).waitFor();
    expect(await attempts.innerText()).toContain(t('attemptStates', 'pending'));
    await expectAccessible(page);
    await expectFits(page);
  }, 120_000);
});
