import type { Browser, Page } from 'playwright-core';
import { sandboxPaymentId, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { checkedTabs } from './browser';
import {
  DESKTOP,
  expectAccessible,
  expectFits,
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
 * The dashboard's Home page (docs/reports.md), in real Chromium against the whole system: the landing page after
 * sign-in, with a shop's last 30 days drawn by Chart.js within the dashboard's CSP (no refusal, checked after every
 * test), each chart named in words and the figures as a table, the balance beside them. RU at 360 px and EN at desktop
 * width as a flow; the page loaded anew at the other width too (the charts size themselves by script, ADR 0041), axe
 * and the fit checked at each, and the screenshots of docs/dashboard.md.
 */

jest.setTimeout(120_000);

let sys: TestSystem;
let browser: Browser;
let merchant: TestMerchant;
let shop: TestShop;

const DAY_MS = 24 * 60 * 60 * 1000;
const moscowInstant = (daysAgo: number, time: string): string =>
  `${new Date(Date.now() + 3 * 60 * 60 * 1000 - daysAgo * DAY_MS).toISOString().slice(0, 10)}T${time}+03:00`;

/** A live link of the shop, paid `daysAgo` days ago at noon Moscow time when `paid`, else left pending (created then). */
async function link(amount: string, daysAgo: number, paid: boolean): Promise<void> {
  const created = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount }, { headers: merchant.keys });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  if (paid) expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
  const at = moscowInstant(daysAgo, '12:00:00');
  await sys.sql(
    `UPDATE links.payment_links SET created_at = $2, expires_at = $2::timestamptz + interval '1 day',
            paid_at = CASE WHEN status = 'paid' THEN $2::timestamptz END WHERE id = $1`,
    [id, at],
  );
}

beforeAll(async () => {
  ({ sys, browser } = await startDashboard());
  // The client pays the fee, so the balance is the sum of the paid amounts: 2,400.00 + 1,250.50 + 300.00 + 5,000.00.
  ({ merchant, shop } = await sys.merchantWithShop({ feePayer: 'client' }));
  await link('2400.00', 0, true);
  await link('99.00', 0, false);
  await link('1250.50', 1, true);
  await link('300.00', 1, true);
  await link('45.00', 1, false);
  await link('5000.00', 12, true);
  await link('10.00', 27, false);
}, 90_000);
afterAll(() => stopDashboard({ sys, browser }));
const openCheckedTab = checkedTabs(
  () => browser,
  () => sys.baseUrl,
);

const NBSP = '\u00a0';
const TOTAL = { ru: `8${NBSP}950,50${NBSP}₽`, en: `8,950.50${NBSP}₽` };
const SHARE = { ru: `57,14${NBSP}%`, en: '57.14%' };

/** The page has drawn: the totals, the balance, and three charts whose canvases Chart.js has sized to their boxes. */
const drawn = async (page: Page): Promise<void> => {
  await page.getByTestId('home-total-volume').waitFor();
  await page.getByTestId('home-balance-amount').waitFor();
  await page.waitForFunction(`(() => {
    const canvases = [...document.querySelectorAll('.chart-box canvas')];
    return canvases.length === 3 && canvases.every((c) => c.width > 0 && c.getBoundingClientRect().width <= c.parentElement.getBoundingClientRect().width + 1);
  })()`);
};

const expectFigures = async (page: Page, lang: Language): Promise<void> => {
  const t = words(lang);
  await expect(page.getByTestId('home-total-volume').textContent()).resolves.toBe(TOTAL[lang]);
  await expect(page.getByTestId('home-total-paid').textContent()).resolves.toBe('4');
  await expect(page.getByTestId('home-total-share').textContent()).resolves.toBe(SHARE[lang]);
  await expect(page.getByTestId('home-balance-amount').textContent()).resolves.toBe(TOTAL[lang]);
  // Each chart is an image named by what it shows; the words come from the catalogue with the page's figures.
  await expect(page.getByTestId('chart-volume').getAttribute('role')).resolves.toBe('img');
  await expect(page.getByTestId('chart-volume').getAttribute('aria-label')).resolves.toContain(TOTAL[lang]);
  await expect(page.getByTestId('chart-paid').getAttribute('aria-label')).resolves.toContain(t.with('homePaidSummary', 4, '', 0).split(' ')[0]!);
  await expect(page.getByTestId('chart-share').getAttribute('aria-label')).resolves.toBe(t.with('homeShareSummary', SHARE[lang]));
};

/** The figures as a table: thirty days, today first; axe and the fit with it open. */
const expectTable = async (page: Page, lang: Language): Promise<void> => {
  const t = words(lang);
  await page.getByText(t('homeAsTable'), { exact: true }).click();
  await expect(page.getByTestId('home-days').locator('tbody tr').count()).resolves.toBe(30);
  const today = page.getByTestId('home-days').locator('tbody tr').first();
  await expect(today.textContent()).resolves.toContain(lang === 'ru' ? `2${NBSP}400,00${NBSP}₽` : `2,400.00${NBSP}₽`);
  await expectAccessible(page);
  await expectFits(page);
};

describe.each(FLOW_COMBOS)('the Home page, $lang at $size.width px', ({ lang, locale, size }) => {
  const t = words(lang);

  it('is where sign-in lands: the last 30 days charted, in words and as a table, with the balance; axe-clean and fitting at both widths', async () => {
    const { page } = await openCheckedTab({ locale, width: size.width, height: size.height });
    await page.goto(`${sys.baseUrl}/dashboard/login`);
    await page.getByLabel(t('email')).fill(merchant.email);
    await page.getByLabel(t('password')).fill(merchant.password);
    await page.getByRole('button', { name: t('signIn'), exact: true }).click();
    await h1(page)
      .filter({ hasText: t('homeTitle') })
      .waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/home');
    await expect(page.getByRole('link', { name: t('navHome'), exact: true }).getAttribute('aria-current')).resolves.toBe('page');
    for (const width of size === PHONE ? [PHONE, DESKTOP] : [DESKTOP, PHONE]) {
      // Loaded at each width, not only resized: the charts measure their boxes (ADR 27's consequence for script layout).
      if (width !== size) {
        await page.setViewportSize(width);
        await page.reload();
      }
      await drawn(page);
      await expectFigures(page, lang);
      await inspect(page, `home-${lang}-${width.width}`);
      await expectTable(page, lang);
    }
  });
});

it('opens the page asked for without a session once signed in (a mail link, a bookmark), its query kept', async () => {
  const t = words('en');
  const { page } = await openCheckedTab({ locale: 'en-US', width: DESKTOP.width, height: DESKTOP.height });
  await page.goto(`${sys.baseUrl}/dashboard/balance?shop_id=${shop.id}`);
  await page.getByLabel(t('email')).fill(merchant.email);
  const asked = new URL(page.url());
  expect([asked.pathname, asked.searchParams.get('next')]).toEqual(['/dashboard/login', `/balance?shop_id=${shop.id}`]);
  await page.getByLabel(t('password')).fill(merchant.password);
  await page.getByRole('button', { name: t('signIn'), exact: true }).click();
  await h1(page)
    .filter({ hasText: t('balanceTransactionsTitle') })
    .waitFor();
  const landed = new URL(page.url());
  expect([landed.pathname, landed.search]).toEqual(['/dashboard/balance', `?shop_id=${shop.id}`]);
  await expectAccessible(page);
});
