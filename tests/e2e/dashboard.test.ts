import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { sandboxPaymentId, startSystem, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { foreignRequests, launchBrowser, openTab, scrollsSideways, type BuyerTab, type TabOptions } from './browser';

/** Screenshots people read in docs/dashboard.md. */
const DOCS = join(__dirname, '..', '..', 'docs', 'dashboard');
const PHONE = { width: 360, height: 780 };
const DESKTOP = { width: 1280, height: 900 };

let sys: TestSystem;
let browser: Browser;
let merchant: TestMerchant;
let shop: TestShop;
let receiver: Server;
let receiverUrl: string;
/** Webhooks the shop's receiver got, by event. */
const received: string[] = [];
const waiters: ((body: string) => void)[] = [];
/** Resolves with the first webhook body the receiver gets that contains `text` (one already received counts). */
const webhookContaining = (text: string, since: number): Promise<string> =>
  new Promise((resolve) => {
    const seen = received.slice(since).find((b) => b.includes(text));
    if (seen !== undefined) {
      resolve(seen);
      return;
    }
    const wait = (body: string) => (body.includes(text) ? resolve(body) : waiters.push(wait));
    waiters.push(wait);
  });
const tabs: BuyerTab[] = [];

/** A port known before the gateway starts, so PUBLIC_BASE_URL (the CSRF check's origin) is the page's origin. */
const freePort = async (): Promise<number> => {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
};

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(body);
      for (const w of waiters.splice(0)) w(body);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const port = await freePort();
  [sys, browser] = await Promise.all([
    startSystem({
      env: { GATEWAY_PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '1000' },
    }),
    launchBrowser(),
  ]);
  merchant = await sys.merchant();
  shop = await sys.shop(merchant.id, { webhookUrl: receiverUrl, webhookSecret: 'whsec-test-secret-0123456789' });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await sys?.stop();
  receiver?.closeAllConnections();
  receiver?.close();
});
afterEach(async () => {
  // Whatever the test did, the page talked to nobody but the gateway, broke no CSP rule and threw nothing.
  for (const tab of tabs.splice(0)) {
    expect(foreignRequests(tab, sys.baseUrl)).toEqual([]);
    expect(tab.errors.filter((e) => /Content Security Policy|Refused to|Uncaught/i.test(e))).toEqual([]);
    await tab.close();
  }
});

const tab = async (options: TabOptions = {}): Promise<Page> => {
  const t = await openTab(browser, options);
  await t.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sys.baseUrl });
  tabs.push(t);
  return t.page;
};

const open = (page: Page, path: string) => page.goto(sys.baseUrl + path);

/** No serious or critical axe-core violation on the page as it is now. */
const expectAccessible = async (page: Page): Promise<void> => {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)).toEqual([]);
};

/** Checks a page at its current size and saves it for docs/dashboard.md. */
const inspect = async (page: Page, name: string): Promise<void> => {
  await expectAccessible(page);
  expect(await scrollsSideways(page)).toBe(false);
  mkdirSync(DOCS, { recursive: true });
  await page.screenshot({ path: join(DOCS, `${name}.png`), fullPage: true });
};

const h1 = (page: Page) => page.locator('h1');

const signIn = async (page: Page, lang: 'en' | 'ru', m: TestMerchant = merchant): Promise<void> => {
  await open(page, '/dashboard/login');
  await page.getByLabel('Email').fill(m.email);
  await page.getByLabel(lang === 'en' ? 'Password' : 'Пароль').fill(m.password);
  await page.getByRole('button', { name: lang === 'en' ? 'Sign in' : 'Войти' }).click();
  await h1(page)
    .filter({ hasText: lang === 'en' ? 'Payment links' : 'Платёжные ссылки' })
    .waitFor();
};

const createLinkByApi = async (body: Record<string, unknown> = {}): Promise<string> => {
  const res = await sys.http.post(
    '/merchant/v1/payment-links',
    { shop_id: shop.id, amount: '1234.50', order_id: `o-${Date.now()}`, ...body },
    { headers: merchant.keys },
  );
  expect(res.status).toBe(201);
  return res.body.id as string;
};

describe('the merchant dashboard at /dashboard', () => {
  it('serves the app with a strict CSP; sign-in in Russian shows a wrong password beside the form, then signs in with the HttpOnly cookie', async () => {
    const page = await tab({ locale: 'ru-RU', ...PHONE });
    const res = await open(page, '/dashboard/login');
    expect(res?.status()).toBe(200);
    const csp = res?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-');
    expect(csp).toContain("frame-ancestors 'none'");
    await h1(page).filter({ hasText: 'Вход' }).waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('ru');
    await inspect(page, 'login-ru-360');

    await page.getByLabel('Email').fill(merchant.email);
    await page.getByLabel('Пароль').fill('wrong-password');
    await page.getByRole('button', { name: 'Войти' }).click();
    await page.getByRole('alert').filter({ hasText: 'Неверный email или пароль.' }).waitFor();

    await page.getByLabel('Пароль').fill(merchant.password);
    await page.getByRole('button', { name: 'Войти' }).click();
    await h1(page).filter({ hasText: 'Платёжные ссылки' }).waitFor();
    const cookies = await page.context().cookies(sys.baseUrl);
    expect(cookies.find((c) => c.name === 'sid')).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    // The app keeps no token of its own.
    expect(await page.evaluate<number>('localStorage.length + sessionStorage.length')).toBeLessThanOrEqual(1);

    // The language switch is remembered.
    await page.getByRole('button', { name: 'Switch to English' }).click();
    await h1(page).filter({ hasText: 'Payment links' }).waitFor();
    await page.reload();
    await h1(page).filter({ hasText: 'Payment links' }).waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('en');
  });

  it('links: create with a copyable checkout URL and its QR, filter, open every field, cancel after confirming', async () => {
    const page = await tab({ locale: 'en-US', ...DESKTOP });
    await signIn(page, 'en');
    await page.getByRole('link', { name: 'New payment link' }).click();
    await h1(page).filter({ hasText: 'New payment link' }).waitFor();
    await inspect(page, 'flow-link-form-en');

    // The form's own check, beside the field.
    await page.getByLabel('Amount, ₽').fill('12.345');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#amount-error').filter({ hasText: 'An amount above 0' }).waitFor();

    const orderId = `web-${Date.now()}`;
    await page.getByLabel('Amount, ₽').fill('1234.50');
    await page.getByLabel('Order id').fill(orderId);
    await page.getByLabel('Description').fill('Coffee and croissant');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByTestId('created-link').waitFor();
    const url = await page.getByRole('textbox', { name: 'Checkout URL' }).inputValue();
    expect(url).toMatch(new RegExp(`^${sys.baseUrl}/p/[0-9a-f-]{36}$`));
    expect(await page.getByTestId('created-link').innerText()).toContain('1,234.50\u00a0₽');
    expect((await page.getByTestId('qr').boundingBox())?.width).toBeGreaterThanOrEqual(150);
    await page.getByRole('button', { name: 'Copy: Checkout URL' }).click();
    await page.getByText('Copied', { exact: true }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(url);
    await inspect(page, 'flow-link-created-en');

    // The table and its filters.
    await page.getByRole('link', { name: 'Payment links' }).click();
    await page.getByTestId('links-table').waitFor();
    const rows = page.getByTestId('links-table').locator('tbody tr');
    await page.getByLabel('Order id').fill(orderId);
    await page.getByRole('button', { name: 'Apply' }).click();
    // The unfiltered table goes, the filtered one comes.
    await rows.filter({ hasNotText: orderId }).first().waitFor({ state: 'detached' });
    await rows.filter({ hasText: orderId }).waitFor();
    expect(await rows.count()).toBe(1);
    await page.getByLabel('Status').selectOption('paid');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No payment links match.').waitFor();
    await page.getByRole('button', { name: 'Reset' }).click();
    await rows.filter({ hasText: orderId }).waitFor();
    await inspect(page, 'flow-links-en');

    // Detail, then cancel: Escape leaves it be, the confirmation cancels it.
    await page.getByLabel('Order id').fill(orderId);
    await page.getByRole('button', { name: 'Apply' }).click();
    await rows.filter({ hasNotText: orderId }).first().waitFor({ state: 'detached' });
    await rows.filter({ hasText: orderId }).getByRole('link').click();
    await h1(page).filter({ hasText: 'Payment link' }).waitFor();
    const fields = await page.getByTestId('link-fields').innerText();
    for (const label of ['Order id', 'Amount', 'Buyer pays', 'You receive', 'Status', 'Checkout URL', 'Created']) expect(fields).toContain(label);
    expect(fields).toContain(orderId);
    await inspect(page, 'flow-link-detail-en');
    await page.getByRole('button', { name: 'Cancel link' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel link' });
    await dialog.waitFor();
    // The dialog has the focus (on its safe choice), and Escape leaves the link be.
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Cancel');
    await inspect(page, 'flow-link-cancel-dialog-en');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Cancel link' }).click();
    await dialog.getByRole('button', { name: 'Yes, cancel the link' }).click();
    await page.getByText('The link is canceled').waitFor();
    expect(await page.getByTestId('link-fields').innerText()).toContain('Canceled');
  });

  it("a paid link's deliveries show their attempts and can be resent", async () => {
    const id = await createLinkByApi();
    expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
    const page = await tab({ locale: 'en-US', ...DESKTOP });
    await signIn(page, 'en');
    // The page shows the deliveries there are when it loads: wait until the notifier has recorded this one.
    for (let i = 0; i < 100; i++) {
      const list = await sys.http.get(`/merchant/v1/webhook-deliveries?payment_link_id=${id}`, { headers: merchant.keys });
      if (list.body.deliveries?.[0]?.status === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await sys.http.get(`/merchant/v1/webhook-deliveries?payment_link_id=${id}`, { headers: merchant.keys })).body.deliveries[0].status).toBe(
      'succeeded',
    );
    await open(page, `/dashboard/links/${id}`);
    const delivery = page.getByTestId('delivery').first();
    await delivery.waitFor();
    expect(await delivery.innerText()).toContain('payment.succeeded');
    expect(await delivery.locator('tbody tr').count()).toBeGreaterThanOrEqual(1);
    await delivery.getByRole('button', { name: 'Resend' }).click();
    await delivery.getByText('Queued for sending').waitFor();
    await inspect(page, 'flow-link-deliveries-en');
  });

  it('shops: create one, change its settings, rotate the webhook secret (shown once), send a test webhook, reissue the cashier key', async () => {
    const page = await tab({ locale: 'en-US', ...DESKTOP });
    await signIn(page, 'en');
    await page.getByRole('link', { name: 'Shops' }).click();
    await page.getByTestId('shops-table').waitFor();
    await page.getByRole('button', { name: 'New shop' }).click();
    await page.getByLabel('Name').fill('Corner café');
    await page.getByLabel('Webhook URL').fill('ftp://nope');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#new-webhook_url-error').waitFor();
    // The server's verdict on a field the form let through is shown beside that field too.
    await page.getByLabel('Webhook URL').fill('http://[not-an-address');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#new-webhook_url-error').waitFor();
    expect(await page.getByLabel('Webhook URL').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Webhook URL').fill('');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Shop created; it waits').waitFor();
    expect(await page.getByTestId('shops-table').innerText()).toContain('Corner café');
    await inspect(page, 'flow-shop-created-en');

    await open(page, `/dashboard/shops/${shop.id}`);
    await h1(page).filter({ hasText: 'Test shop' }).waitFor();
    await page.getByLabel('Who pays the fee').selectOption('client');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved', { exact: true }).waitFor();
    expect((await sys.http.get(`/merchant/v1/shops/${shop.id}`, { headers: merchant.keys })).body.fee_payer).toBe('client');

    await page.getByLabel('Old secret stays valid for (minutes)').fill('60');
    await page.getByRole('button', { name: 'Rotate webhook secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, rotate' }).click();
    const reveal = page.getByTestId('secret-reveal');
    await reveal.waitFor();
    expect(await reveal.getByRole('textbox', { name: 'Standard Webhooks secret' }).inputValue()).toMatch(/^whsec_/);
    expect((await reveal.getByRole('textbox', { name: 'Webhook secret', exact: true }).inputValue()).length).toBeGreaterThanOrEqual(32);
    expect(await reveal.innerText()).toContain('shown only once');
    await inspect(page, 'flow-shop-secret-en');
    await reveal.getByRole('button', { name: 'I have saved it' }).click();

    const before = received.length;
    await page.getByRole('button', { name: 'Send test webhook' }).click();
    await page.getByText('Test webhook queued').waitFor();
    expect(JSON.parse(await webhookContaining('webhook.test', before))).toMatchObject({ event: 'webhook.test', data: { shop_id: shop.id } });

    await page.getByRole('button', { name: 'Reissue cashier key' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, reissue' }).click();
    const cashier = await page.getByRole('textbox', { name: 'Cashier key' }).inputValue();
    expect(cashier.length).toBeGreaterThan(10);
    await inspect(page, 'flow-shop-cashier-key-en');
  });

  it('API keys: create with a label (secret once), reissue with grace, revoke after confirming', async () => {
    const page = await tab({ locale: 'en-US', ...DESKTOP });
    await signIn(page, 'en');
    await page.getByRole('link', { name: 'API keys' }).click();
    await h1(page).filter({ hasText: 'API keys' }).waitFor();
    await page.getByLabel('Label').fill('Website');
    await page.getByRole('button', { name: 'Create' }).click();
    const reveal = page.getByTestId('secret-reveal');
    await reveal.waitFor();
    const publicKey = await reveal.getByRole('textbox', { name: 'Public key' }).inputValue();
    const secret = await reveal.getByRole('textbox', { name: 'API secret' }).inputValue();
    // The new pair works.
    expect((await sys.http.get('/merchant/v1/shops', { headers: { 'X-API-Key': publicKey, 'X-API-Secret': secret } })).status).toBe(200);
    await inspect(page, 'flow-api-key-created-en');
    await reveal.getByRole('button', { name: 'I have saved it' }).click();
    const row = page.getByTestId('keys-table').locator('tr', { hasText: 'Website' });

    await row.getByRole('button', { name: 'Reissue: Website' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Old key keeps working for (minutes)').fill('99999');
    await dialog.getByRole('button', { name: 'Yes, reissue' }).click();
    await dialog.locator('#grace_minutes-error').waitFor();
    await dialog.getByLabel('Old key keeps working for (minutes)').fill('30');
    await dialog.getByRole('button', { name: 'Yes, reissue' }).click();
    await page.getByText('API key reissued').waitFor();
    await page.getByTestId('secret-reveal').getByRole('button', { name: 'I have saved it' }).click();

    const current = page.getByTestId('keys-table').locator('tr', { hasText: 'Website' }).filter({ hasText: 'Active' });
    await current.getByRole('button', { name: 'Revoke: Website' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, revoke' }).click();
    await page.getByTestId('keys-table').locator('tr', { hasText: 'Website' }).filter({ hasText: 'Revoked' }).waitFor();
    await inspect(page, 'flow-api-key-revoked-en');
  });

  it('account: a wrong current password is shown beside its field, the audit events list the changes, sign out ends the session', async () => {
    const m = await sys.merchant();
    const page = await tab({ locale: 'en-US', ...DESKTOP });
    await signIn(page, 'en', m);
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByTestId('account-email').filter({ hasText: m.email }).waitFor();
    await page.getByLabel('Current password').fill('not-the-password');
    await page.getByLabel('New password', { exact: true }).fill('a-new-password-123');
    await page.getByLabel('Repeat the new password').fill('a-new-password-123');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.locator('#current_password-error').filter({ hasText: 'The current password is wrong.' }).waitFor();
    await page.getByLabel('Current password').fill(m.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed').waitFor();
    await page.reload();
    await page.getByTestId('audit-table').filter({ hasText: 'Password changed' }).waitFor();
    await inspect(page, 'flow-account-en');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await h1(page).filter({ hasText: 'Sign in' }).waitFor();
    await open(page, '/dashboard/links');
    await h1(page).filter({ hasText: 'Sign in' }).waitFor();
  });

  it('links page through "next" with the cursor, and dates in Moscow time whatever the browser zone', async () => {
    const { merchant: m, shop: own } = await sys.merchantWithShop();
    const ids: string[] = [];
    for (let i = 0; i < 21; i++) {
      const res = await sys.http.post(
        '/merchant/v1/payment-links',
        { shop_id: own.id, amount: `${100 + i}.00`, order_id: `page-${i}` },
        { headers: m.keys },
      );
      expect(res.status).toBe(201);
      ids.push(res.body.id as string);
    }
    const context = await browser.newContext({ locale: 'en-US', timezoneId: 'America/New_York', viewport: DESKTOP });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      await signIn(page, 'en', m);
      const rows = page.getByTestId('links-table').locator('tbody tr');
      await rows.first().waitFor();
      expect(await rows.count()).toBe(20);
      // Newest first: the first page ends at the second link made.
      expect(await rows.first().innerText()).toContain('page-20');
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByTestId('links-table').locator('tbody tr', { hasText: 'page-0' }).waitFor();
      expect(await rows.count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Next page' }).count()).toBe(0);
      await page.getByRole('button', { name: 'First page' }).click();
      await page.getByTestId('links-table').locator('tbody tr', { hasText: 'page-20' }).waitFor();

      const link = (await sys.http.get(`/api/v1/payment-links/${ids[0]}`, { headers: { Authorization: `Bearer ${await sys.login(m)}` } })).body;
      const wire = /T(\d{2}):(\d{2})/.exec(link.created_at as string)!;
      await open(page, `/dashboard/links/${ids[0]}`);
      const shown = await page
        .getByTestId('link-fields')
        .locator('div', { has: page.locator('dt', { hasText: /^Created$/ }) })
        .locator('time')
        .innerText();
      // The wire's +03:00 clock is what the page shows, not New York's.
      expect(shown).toContain(`${wire[1]}:${wire[2]}`);
    } finally {
      await context.close();
    }
  });

  it('a merchant whose email is not confirmed is told so, beside the action it tried', async () => {
    const m = await sys.merchant({ emailConfirmed: false });
    const page = await tab({ locale: 'en-US', ...DESKTOP });
    await signIn(page, 'en', m);
    await page.getByText('Your email is not confirmed yet').waitFor();
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('form[aria-labelledby=new-key-title] [role=alert]').filter({ hasText: 'Confirm your email first.' }).waitFor();
  });

  it('every page works at 360 px and at desktop width, in Russian and in English, keyboard first', async () => {
    const id = await createLinkByApi({ description: 'Заказ №7' });
    const paths: [string, string][] = [
      ['links', '/dashboard/links'],
      ['link-new', '/dashboard/links/new'],
      ['link-detail', `/dashboard/links/${id}`],
      ['shops', '/dashboard/shops'],
      ['shop-detail', `/dashboard/shops/${shop.id}`],
      ['api-keys', '/dashboard/api-keys'],
      ['account', '/dashboard/account'],
    ];
    for (const [lang, size, locale] of [
      ['ru', PHONE, 'ru-RU'],
      ['en', PHONE, 'en-US'],
      ['ru', DESKTOP, 'ru-RU'],
      ['en', DESKTOP, 'en-US'],
    ] as const) {
      const page = await tab({ locale, ...size });
      await signIn(page, lang);
      for (const [name, path] of paths) {
        await open(page, path);
        await h1(page).waitFor();
        await page.locator('.loading').first().waitFor({ state: 'detached' });
        await inspect(page, `${name}-${lang}-${size.width}`);
      }
      // Keyboard alone: the skip link comes first and lands on the content.
      await open(page, '/dashboard/links');
      await h1(page).waitFor();
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement.className')).toBe('skip');
    }
    // Money and dates as the checkout page writes them, dates in Moscow time.
    const page = await tab({ locale: 'ru-RU', ...PHONE });
    await signIn(page, 'ru');
    await open(page, `/dashboard/links/${id}`);
    const fields = await page.getByTestId('link-fields').innerText();
    expect(fields).toContain('1\u00a0234,50\u00a0₽');
  }, 300_000);
});
