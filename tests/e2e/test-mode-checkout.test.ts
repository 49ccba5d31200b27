import { randomUUID } from 'node:crypto';
import { createClient } from '@pl/client';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { documented } from '../support/openapi-validator';
import { startSystem, WebhookReceiver, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { checkedTabs, expectAccessible, launchBrowser, screenshot, scrollsSideways, type TabOptions } from './browser';

/**
 * A merchant integrating in test mode, end to end in real Chromium: a link made with the test key pair, its
 * checkout with the test banner and the simulator's buttons, the simulated payment, and the webhook that says
 * `"livemode": false` and verifies as any other. A live link's page must show none of it.
 */

const PHONE: TabOptions = { width: 360, height: 740 };
const WEBHOOK_SECRET = 'test-mode-checkout-webhook-secret-0123456789';

let sys: TestSystem;
let browser: Browser;
let receiver: WebhookReceiver;
let merchant: TestMerchant;
let shop: TestShop;

beforeAll(async () => {
  [sys, browser, receiver] = await Promise.all([startSystem(), launchBrowser(), WebhookReceiver.start()]);
  merchant = await sys.merchant();
  shop = await sys.shop(merchant.id, { feePayer: 'client', sbpBps: 300, webhookUrl: receiver.url, webhookSecret: WEBHOOK_SECRET });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await sys?.stop();
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

/** The merchant API as an integration calls it, with one of the merchant's two key pairs. */
const api = (mode: 'live' | 'test') =>
  documented(
    createClient(sys.baseUrl, {
      auth:
        mode === 'test'
          ? { kind: 'apiKey', key: merchant.testApiKey, secret: merchant.testApiSecret }
          : { kind: 'apiKey', key: merchant.apiKey, secret: merchant.apiSecret },
    }),
  );

const createLink = async (mode: 'live' | 'test'): Promise<string> => {
  const { data, response } = await api(mode).POST('/merchant/v1/payment-links', {
    body: { shop_id: shop.id, amount: '1000.00', description: 'Заказ №7: тест интеграции', order_id: `o-${randomUUID()}` },
  });
  expect(response.status).toBe(201);
  expect(data!.livemode).toBe(mode === 'live');
  return data!.id;
};

const linkOf = async (mode: 'live' | 'test', id: string) => {
  const { data, error } = await api(mode).GET('/merchant/v1/payment-links/{id}', { params: { path: { id } } });
  if (!data) throw new Error(`GET /merchant/v1/payment-links/${id}: ${JSON.stringify(error)}`);
  return data;
};

const open = async (page: Page, id: string): Promise<void> => {
  const res = await page.goto(`${sys.baseUrl}/p/${id}`);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'; style-src 'self'/);
};

const selectSbp = async (page: Page, sbpName: string, showDetails: string): Promise<void> => {
  await page.getByLabel(sbpName).check();
  await page.getByRole('button', { name: showDetails }).click();
  await page.locator('#details[data-method=sbp]').waitFor();
};

/** A secret as the Standard Webhooks libraries take it: `whsec_` + base64 of its UTF-8 bytes. */
const whsec = `whsec_${Buffer.from(WEBHOOK_SECRET, 'utf8').toString('base64')}`;

describe('the checkout page of a test link', () => {
  it('on a phone, in Russian: says it is a test, simulates a successful payment after SBP is chosen, and the shop gets a verifiable livemode:false webhook', async () => {
    expect(merchant.testApiKey).toMatch(/^pk_test_/);
    expect(merchant.testApiSecret).toMatch(/^sk_test_/);
    const id = await createLink('test');
    const page = await tab({ locale: 'ru-RU', ...PHONE });
    await open(page, id);

    const banner = page.getByRole('note');
    expect(await banner.isVisible()).toBe(true);
    expect(await banner.innerText()).toMatch(/^ТЕСТОВЫЙ РЕЖИМ Это тестовая ссылка: настоящие деньги не списываются/);
    // Nothing to simulate before a method is chosen, as a real provider has nothing to answer yet.
    expect(await page.locator('[data-simulate]').count()).toBe(0);
    expect(await scrollsSideways(page)).toBe(false);
    await expectAccessible(page);
    await screenshot(page, 'test-mode-01-pending-phone-ru');

    await selectSbp(page, 'СБП — Система быстрых платежей', 'Показать реквизиты');
    const simulator = page.getByRole('group', { name: 'Смоделировать ответ платёжной системы' });
    const paid = simulator.getByRole('button', { name: 'Смоделировать успешную оплату' });
    expect(await paid.isVisible()).toBe(true);
    expect(await simulator.getByRole('button', { name: 'Смоделировать неудачную оплату' }).isVisible()).toBe(true);
    // A test link never reaches a real provider: the sandbox gave the details.
    expect(await linkOf('test', id)).toMatchObject({ status: 'pending', network: 'SBP', gateway_provider: 'sandbox', livemode: false });
    expect(await scrollsSideways(page)).toBe(false);
    await expectAccessible(page);
    await screenshot(page, 'test-mode-02-sbp-simulator-phone-ru');

    await paid.click();
    await page.locator('[data-testid=final-paid]').waitFor();
    expect(await page.locator('#final-heading').innerText()).toBe('Оплата получена');
    // Screen readers hear it too (a string waitForFunction would need eval, which the CSP forbids).
    await page.locator('#announcer', { hasText: /^Оплата получена$/ }).waitFor({ state: 'attached' });
    // The banner stays on the final page; the buttons went with the pending panel.
    expect(await banner.isVisible()).toBe(true);
    expect(await page.locator('[data-simulate]').count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'test-mode-03-paid-phone-ru');

    const link = await linkOf('test', id);
    expect(link).toMatchObject({ status: 'paid', livemode: false, paid_at: expect.any(String) });
    const hit = await receiver.nthFor(id, 1);
    expect(hit.body.toString('utf8')).toMatch(
      /^\{"event":"payment\.succeeded","event_id":"evt_[0-9a-f-]{36}","created_at":"[^"]+","livemode":false,"data":\{/,
    );
    expect(hit.json).toEqual({
      event: 'payment.succeeded',
      event_id: hit.headers['webhook-id'],
      created_at: link.paid_at,
      livemode: false,
      data: {
        payment_link_id: id,
        id,
        shop_id: shop.id,
        order_id: link.order_id,
        amount: '1000.00',
        merchant_credit: link.merchant_credit,
        status: 'paid',
        paid_at: link.paid_at,
      },
    });
    const headers = {
      'webhook-id': String(hit.headers['webhook-id']),
      'webhook-timestamp': String(hit.headers['webhook-timestamp']),
      'webhook-signature': String(hit.headers['webhook-signature']),
    };
    expect(new Webhook(whsec).verify(hit.body.toString('utf8'), headers)).toEqual(hit.json);
    // The library refuses the same webhook under another secret: the check above can fail.
    expect(() =>
      new Webhook(`whsec_${Buffer.from('another secret', 'utf8').toString('base64')}`).verify(hit.body.toString('utf8'), headers),
    ).toThrow();
  });

  it('in English: simulates a failed payment and shows the failed state', async () => {
    const id = await createLink('test');
    const page = await tab({ locale: 'en-US' });
    await open(page, id);
    expect(await page.getByRole('note').innerText()).toMatch(/^TEST MODE This is a test link: no real money is charged/);

    await selectSbp(page, 'SBP — Faster Payments System', 'Show payment details');
    await page.getByRole('button', { name: 'Simulate failed payment' }).click();
    await page.locator('[data-testid=final-failed]').waitFor();
    expect(await page.locator('#final-heading').innerText()).toBe('The payment failed');
    expect(await page.getByRole('note').isVisible()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'test-mode-04-failed-en');
    expect(await linkOf('test', id)).toMatchObject({ status: 'failed', livemode: false });

    // The link is over: the simulator refuses it as any settled link, and the page's status keeps the failure.
    const again = await sys.http.post(`/p/${id}/simulate`, { status: 'paid' });
    expect({ status: again.status, code: again.body?.error?.code }).toEqual({ status: 409, code: 'payment_link.err.not_pending' });
    expect((await linkOf('test', id)).status).toBe('failed');
  });
});

describe('the checkout page of a live link', () => {
  it('shows no test banner nor simulator, and the simulate route answers as if the link did not exist', async () => {
    const id = await createLink('live');
    const page = await tab({ locale: 'ru-RU', ...PHONE });
    await open(page, id);
    await selectSbp(page, 'СБП — Система быстрых платежей', 'Показать реквизиты');
    expect(await page.locator('[data-testid=test-mode-banner], [role=note], [data-simulate]').count()).toBe(0);
    expect(await page.locator('main').innerText()).not.toMatch(/тестов|смоделир/i);

    const simulated = await sys.http.post(`/p/${id}/simulate`, { status: 'paid' });
    expect({ status: simulated.status, code: simulated.body?.error?.code }).toEqual({ status: 404, code: 'common.err.not_found' });
    expect(await linkOf('live', id)).toMatchObject({ status: 'pending', livemode: true });
  });
});
