import { readFile } from 'node:fs/promises';
import { createClient } from '@pl/client';
import type { Browser, Page } from 'playwright-core';
import { documented } from '../support/openapi-validator';
import { WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { checkedTabs, type TabOptions } from './browser';
import {
  checkBothWidths,
  DESKTOP,
  expectLinkAtAGlance,
  expectListReadsAtWidth,
  FLOW_COMBOS,
  h1,
  inspect,
  type Language,
  PHONE,
  startDashboard,
  stopDashboard,
  words,
} from './dashboard-kit';

/**
 * What follows a payment, in the merchant dashboard (docs/dashboard.md), in real Chromium: the shop's balance,
 * a partial refund with its confirmation and the test simulator, the balance page and its CSV statement, the shop's
 * webhook events and the Events page with each event's deliveries. In test mode, where the simulators are.
 */

let sys: TestSystem;
let browser: Browser;
let receiver: WebhookReceiver;
let merchant: TestMerchant;

beforeAll(async () => {
  [{ sys, browser }, receiver] = await Promise.all([startDashboard(), WebhookReceiver.start()]);
  merchant = await sys.merchant();
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await stopDashboard({ sys, browser });
});
/** Every tab is checked after each test: it talked to nobody but the gateway, broke no CSP rule, threw nothing. */
const openCheckedTab = checkedTabs(
  () => browser,
  () => sys.baseUrl,
);

const tab = async (options: TabOptions): Promise<Page> => {
  const t = await openCheckedTab(options);
  return t.page;
};

/** The merchant API with the test key pair, every answer checked against docs/openapi.json. */
const testApi = () => documented(createClient(sys.baseUrl, { auth: { kind: 'apiKey', key: merchant.testApiKey, secret: merchant.testApiSecret } }));

/** A rouble amount as the dashboard writes it (services/gateway/dashboard/src/format.ts). */
const rub = (text: string, lang: Language): string => {
  const [, sign = '', units = '0', cents = '00'] = /^(-?)(\d+)\.(\d{2})$/.exec(text) ?? [];
  return lang === 'ru'
    ? `${sign}${units.replace(/\B(?=(\d{3})+(?!\d))/g, '\u00a0')},${cents}\u00a0₽`
    : `${sign}${units.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}\u00a0₽`;
};

/** A test link of the shop, paid through the checkout's simulator after the buyer chose how to pay (SBP unless told). */
const paidTestLink = async (
  shop: TestShop,
  amount: string,
  method: { method: 'sbp' } | { method: 'crypto'; network: string } = { method: 'sbp' },
) => {
  const created = await testApi().POST('/merchant/v1/payment-links', { body: { shop_id: shop.id, amount, order_id: `money-${Date.now()}` } });
  expect(created.response.status).toBe(201);
  const id = created.data!.id;
  expect((await sys.http.post(`/p/${id}/select`, method)).status).toBe(200);
  expect((await sys.http.post(`/p/${id}/simulate`, { status: 'paid' })).status).toBe(200);
  const link = await testApi().GET('/merchant/v1/payment-links/{id}', { params: { path: { id } } });
  expect(link.data?.status).toBe('paid');
  return link.data!;
};

const signInTest = async (page: Page, lang: Language): Promise<void> => {
  const t = words(lang);
  await page.goto(`${sys.baseUrl}/dashboard/login`);
  await page.getByLabel(t('email')).fill(merchant.email);
  await page.getByLabel(t('password')).fill(merchant.password);
  await page.getByRole('button', { name: t('signIn'), exact: true }).click();
  await h1(page)
    .filter({ hasText: t('homeTitle') })
    .waitFor();
  // The choice is remembered by the browser, so every page opened after this is in test mode.
  await page.getByRole('switch').click();
  await page.getByTestId('test-banner').waitFor();
};

const open = async (page: Page, path: string): Promise<void> => {
  await page.goto(sys.baseUrl + path);
  await h1(page).waitFor();
  await page.getByTestId('test-banner').waitFor();
  await page.locator('.loading').first().waitFor({ state: 'detached' });
};

/** Each flow in Russian on the phone and in English at desktop width, every state it reaches checked at both widths (ADR 0027). */
describe.each(FLOW_COMBOS)('money after a payment in the dashboard, $lang at $size.width px', ({ lang, locale, size }) => {
  const t = words(lang);
  /** axe and the fit at both widths; the screenshot in English at desktop width (docs/dashboard.md). */
  const check = (page: Page, name: string): Promise<void> => checkBothWidths(page, lang, size, name);

  it('a paid test link: the balance on the shop page, a partial refund after confirming, the refused one beyond the balance, the simulated success, the balance page and its CSV', async () => {
    // A shop of its own, so its balance is this test's alone; the merchant pays the fee, so the balance is below the amount.
    const shop = await sys.shop(merchant.id, {
      feePayer: 'merchant',
      sbpBps: 300,
      cryptoBps: 300,
      webhookUrl: receiver.url,
      webhookSecret: 'whsec-money-0123456789',
    });
    const link = await paidTestLink(shop, '1000.00');
    expect(link.merchant_credit).toBe('970.00');
    const page = await tab({ locale, ...size });
    await signInTest(page, lang);

    // The shop's balance, in test mode.
    await open(page, `/dashboard/shops/${shop.id}`);
    const balance = page.getByTestId('shop-balance');
    await balance.getByRole('heading', { name: t('balanceOfMode', 'test') }).waitFor();
    expect(await page.getByTestId('balance-available').innerText()).toBe(rub('970.00', lang));
    expect(await page.getByTestId('balance-reserve').innerText()).toBe(rub('0.00', lang));
    await check(page, 'flow-shop-balance-en');

    // The link: all of it refundable, the amount offered by default; 300 refunded after the confirmation.
    await open(page, `/dashboard/links/${link.id}`);
    const refunds = page.getByTestId('refunds');
    expect(await refunds.getByTestId('refundable').innerText()).toBe(rub('1000.00', lang));
    const amount = refunds.getByLabel(`${t('amount')}, ₽`);
    expect(await amount.inputValue()).toBe('1000.00');
    await amount.fill('300');
    await refunds.getByLabel(t('reason')).fill('Damaged box');
    await refunds.getByRole('button', { name: t('refundContinue') }).click();
    const dialog = page.getByRole('dialog', { name: t('refund') });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain(rub('300.00', lang));
    // The dialog opens on its safe choice, and Escape refunds nothing.
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe(t('cancel'));
    await check(page, 'flow-link-refund-dialog-en');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await testApi().GET('/merchant/v1/refunds', { params: { query: { payment_link_id: link.id } } })).data?.refunds).toEqual([]);
    await refunds.getByRole('button', { name: t('refundContinue') }).click();
    await dialog.getByRole('button', { name: t('refundYes') }).click();
    await refunds.getByText(t('refundCreated')).waitFor();
    const card = refunds.getByTestId('refund');
    await card.getByText(t('refundStatus', 'pending')).waitFor();
    expect(await card.innerText()).toContain('Damaged box');
    expect(await refunds.getByTestId('refundable').innerText()).toBe(rub('700.00', lang));

    // 700 is refundable but the balance holds 670: the API's 422 is shown in the page's words, and nothing is created.
    expect(await amount.inputValue()).toBe('700.00');
    await refunds.getByRole('button', { name: t('refundContinue') }).click();
    await dialog.getByRole('button', { name: t('refundYes') }).click();
    await refunds
      .locator('[role=alert]')
      .filter({ hasText: t('errors', 'refund.err.insufficient_balance') })
      .waitFor();
    await check(page, 'flow-link-refund-refused-en');
    const listed = await testApi().GET('/merchant/v1/refunds', { params: { query: { payment_link_id: link.id } } });
    expect(listed.data?.refunds.map((r) => [r.amount, r.status, r.reason])).toEqual([['300.00', 'pending', 'Damaged box']]);

    // Test mode's simulator settles it; the link shows what was refunded.
    await card.getByRole('button', { name: t('simulateSucceeded') }).click();
    await card.getByText(t('refundStatus', 'succeeded')).waitFor();
    expect(await card.getByRole('button', { name: t('simulateSucceeded') }).count()).toBe(0);
    await refunds.getByTestId('amount-refunded').getByText(rub('300.00', lang), { exact: true }).waitFor();
    await check(page, 'flow-link-refunds-en');
    const after = await testApi().GET('/merchant/v1/balance', { params: { query: { shop_id: String(shop.id) } } });
    expect(after.data).toMatchObject({ available: '670.00', refund_reserve: '0.00', livemode: false });

    // The balance page: the payment and the refund, newest first, for the chosen shop.
    await page.getByRole('link', { name: t('navBalance'), exact: true }).click();
    await h1(page)
      .filter({ hasText: t('balanceTransactionsTitle') })
      .waitFor();
    await page.getByLabel(t('shop')).selectOption(String(shop.id));
    const filtered = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/v1/balance-transactions' && new URL(r.url()).searchParams.get('shop_id') === String(shop.id),
    );
    await page.getByRole('button', { name: t('apply') }).click();
    expect((await filtered).request().headers()['pl-mode']).toBe('test');
    const rows = page.getByTestId('balance-table').locator('tbody tr');
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).getAttribute('data-type')).toBe('refund');
    expect(await rows.nth(0).innerText()).toContain(rub('-300.00', lang));
    expect(await rows.nth(1).getAttribute('data-type')).toBe('payment');
    for (const money of ['1000.00', '30.00', '970.00']) expect(await rows.nth(1).innerText()).toContain(rub(money, lang));
    await check(page, 'flow-balance-en');

    // The statement: the same rows as CSV, with the byte-order mark a spreadsheet needs, and in test mode.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: t('downloadCsv') }).click()]);
    expect(download.suggestedFilename()).toBe(`statement-${shop.id}-test.csv`);
    const csv = await readFile(await download.path(), 'utf8');
    expect(csv.startsWith('\uFEFF')).toBe(true);
    const lines = csv.slice(1).trimEnd().split(/\r\n/);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^id,shop_id,type,amount,fee,net,balance_after,payment_link_id,refund_id,created_at/);
    expect(lines[1]).toContain(',refund,-300.00,0.00,-300.00,670.00,');
    expect(lines[2]).toContain(`,payment,1000.00,30.00,970.00,970.00,${link.id},`);
  }, 120_000);

  it("a link paid in crypto asks for the buyer's address: a wrong one is refused beside its field, a valid one refunds to it", async () => {
    const shop = await sys.shop(merchant.id, { webhookUrl: receiver.url, webhookSecret: 'whsec-money-crypto-0123456789' });
    const link = await paidTestLink(shop, '500.00', { method: 'crypto', network: 'USDT-ERC20' });
    // One of EIP-55's own examples: mixed case, the case being its checksum.
    const address = '0x52908400098527886E0F7030069857D2E4169EE7';
    expect(link.network).toBe('USDT-ERC20');
    const page = await tab({ locale, ...size });
    await signInTest(page, lang);
    await open(page, `/dashboard/links/${link.id}`);
    const refunds = page.getByTestId('refunds');
    await refunds.getByLabel(`${t('amount')}, ₽`).fill('100');
    const destination = refunds.getByLabel(t('destination'));
    // A well-formed address with a wrong EIP-55 checksum: only the server's check can tell, and it says so beside the field.
    await destination.fill(address.replace(/EE7$/, 'Ee7'));
    await refunds.getByRole('button', { name: t('refundContinue') }).click();
    await page
      .getByRole('dialog', { name: t('refund') })
      .getByRole('button', { name: t('refundYes') })
      .click();
    await refunds
      .locator('#refund-destination-error')
      .filter({ hasText: t.with('destinationInvalid', 'USDT-ERC20') })
      .waitFor();
    // Beside the field only: nothing else is said about the form as a whole.
    expect(await refunds.locator('.error[role=alert]').count()).toBe(0);
    expect(await destination.getAttribute('aria-invalid')).toBe('true');
    await check(page, 'flow-link-refund-crypto-refused-en');
    await destination.fill(address);
    await refunds.getByRole('button', { name: t('refundContinue') }).click();
    await page
      .getByRole('dialog', { name: t('refund') })
      .getByRole('button', { name: t('refundYes') })
      .click();
    await refunds.getByText(t('refundCreated')).waitFor();
    expect(await refunds.getByTestId('refund').innerText()).toContain(address);
    const listed = await testApi().GET('/merchant/v1/refunds', { params: { query: { payment_link_id: link.id } } });
    expect(listed.data?.refunds.map((r) => [r.amount, r.destination])).toEqual([['100.00', address]]);
  }, 120_000);

  it("the shop's webhook events: payment_link.canceled chosen, a canceled link's event on the Events page with its delivery", async () => {
    const shop = await sys.shop(merchant.id, { webhookUrl: receiver.url, webhookSecret: 'whsec-money-events-0123456789' });
    const page = await tab({ locale, ...size });
    await signInTest(page, lang);
    await open(page, `/dashboard/shops/${shop.id}`);
    const form = page.locator('form[aria-labelledby=webhook-events-title]');
    // The default: the contract's one event.
    expect(await form.getByRole('checkbox', { checked: true }).count()).toBe(1);
    expect(await form.getByLabel(t('eventType', 'payment.succeeded')).isChecked()).toBe(true);
    await form.getByLabel(t('eventType', 'payment_link.canceled')).check();
    await form.getByRole('button', { name: t('saveWebhookEvents') }).click();
    await form.getByText(t('webhookEventsSaved')).waitFor();
    await check(page, 'flow-shop-webhook-events-en');
    const saved = await testApi().GET('/merchant/v1/shops/{id}', { params: { path: { id: String(shop.id) } } });
    expect(saved.data?.webhook_events).toEqual(['payment.succeeded', 'payment_link.canceled']);

    // A link canceled: the shop is sent the event, and the Events page lists it with that delivery.
    const created = await testApi().POST('/merchant/v1/payment-links', { body: { shop_id: shop.id, amount: '250.00' } });
    const id = created.data!.id;
    expect((await testApi().POST('/merchant/v1/payment-links/{id}/cancel', { params: { path: { id } }, body: {} })).response.status).toBe(200);
    const hit = await receiver.waitFor((h) => h.json?.event === 'payment_link.canceled' && h.json?.data?.payment_link_id === id);
    expect(hit.json).toMatchObject({ livemode: false, data: { status: 'canceled' } });
    // The page shows the deliveries there are when it loads: wait until the notifier has recorded this one's answer.
    for (let i = 0; i < 100; i++) {
      const list = await testApi().GET('/merchant/v1/webhook-deliveries', { params: { query: { payment_link_id: id } } });
      if (list.data?.deliveries.some((d) => d.webhook_id === hit.json.event_id && d.status === 'succeeded')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await page.getByRole('link', { name: t('navEvents'), exact: true }).click();
    await h1(page)
      .filter({ hasText: t('eventsTitle') })
      .waitFor();
    const typed = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/v1/events' && new URL(r.url()).searchParams.get('type') === 'payment_link.canceled',
    );
    await page.getByLabel(t('event')).selectOption('payment_link.canceled');
    expect((await typed).request().headers()['pl-mode']).toBe('test');
    const event = page.getByTestId('event').filter({ hasText: id });
    await event.waitFor();
    expect(await event.innerText()).toContain(hit.json.event_id);
    await event.getByTestId('event-deliveries').getByText(t('deliveryStatus', 'succeeded')).waitFor();
    // Every event shown is of the chosen type.
    expect(new Set(await page.getByTestId('event').evaluateAll((els) => els.map((e) => e.getAttribute('data-event'))))).toEqual(
      new Set(['payment_link.canceled']),
    );
    await check(page, 'flow-events-en');
  }, 120_000);
});

describe('the money pages at 360 px and at desktop width, in Russian and in English', () => {
  it('balance and events pages, and the shop page with its balance, pass axe and fit the width', async () => {
    const shop = await sys.shop(merchant.id, { feePayer: 'client', webhookUrl: receiver.url, webhookSecret: 'whsec-money-pages-0123456789' });
    const link = await paidTestLink(shop, '1234.50');
    const paths: [string, string][] = [
      ['balance', '/dashboard/balance'],
      ['events', '/dashboard/events'],
      ['shop-balance', `/dashboard/shops/${shop.id}`],
      ['link-refunds', `/dashboard/links/${link.id}`],
    ];
    // One window per language, each page opened once and looked at in both widths (ADR 0027: the layout is CSS alone).
    for (const [lang, locale] of [
      ['ru', 'ru-RU'],
      ['en', 'en-US'],
    ] as const) {
      const page = await tab({ locale, ...PHONE });
      await signInTest(page, lang);
      for (const [name, path] of paths) {
        await open(page, path);
        for (const size of [PHONE, DESKTOP]) {
          await page.setViewportSize(size);
          if (name === 'link-refunds') await expectLinkAtAGlance(page, lang);
          if (name === 'balance') await expectListReadsAtWidth(page, 'balance-table', size.width);
          await inspect(page, `${name}-${lang}-${size.width}`);
        }
        await page.setViewportSize(PHONE);
      }
    }
  }, 300_000);
});
