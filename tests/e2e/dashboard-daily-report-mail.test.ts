import type { Browser } from 'playwright-core';
import type { TestSystem } from '../support/system';
import { checkedTabs } from './browser';
import { checkBothWidths, FLOW_COMBOS, h1, startDashboard, stopDashboard, words } from './dashboard-kit';

/**
 * The daily report mail's opt-in on the Account page (docs/adr/0049), in Chromium against the whole system: the
 * checkbox starts off, ticking it saves at once (the gateway's flag turns on, the page says so), unticking saves it off;
 * axe-clean and fitting at both widths, RU on the phone and EN at desktop width (ADR 27).
 */
jest.setTimeout(120_000);

let sys: TestSystem;
let browser: Browser;

beforeAll(async () => {
  ({ sys, browser } = await startDashboard({ env: { DAILY_REPORT_MAIL_EVERY_MS: '0' } }));
}, 90_000);
afterAll(() => stopDashboard({ sys, browser }));
const openCheckedTab = checkedTabs(
  () => browser,
  () => sys.baseUrl,
);

const flag = async (merchantId: string): Promise<boolean | undefined> =>
  (
    await sys.sql<{ on: boolean }>(`SELECT daily_report_mail AS on FROM gateway.memberships WHERE merchant_id = $1 AND role = 'owner'`, [merchantId])
  )[0]?.on;

describe.each(FLOW_COMBOS)('the daily report mail on the Account page, $lang at $size.width px', ({ lang, locale, size }) => {
  const t = words(lang);

  it('is a checkbox that saves the member’s opt-in as it is ticked and unticked', async () => {
    const owner = await sys.merchant();
    const { page } = await openCheckedTab({ locale, width: size.width, height: size.height });
    await page.goto(`${sys.baseUrl}/dashboard/login`);
    await page.getByLabel(t('email')).fill(owner.email);
    await page.getByLabel(t('password')).fill(owner.password);
    await page.getByRole('button', { name: t('signIn'), exact: true }).click();
    await h1(page)
      .filter({ hasText: t('homeTitle') })
      .waitFor();
    await page.getByRole('link', { name: t('navAccount'), exact: true }).click();
    const box = page.getByRole('checkbox', { name: t('dailyReportMail', 'label') });
    await box.waitFor();
    expect(await box.isChecked()).toBe(false);
    await checkBothWidths(page, lang, size);

    await box.check();
    await page
      .getByRole('status')
      .filter({ hasText: t('dailyReportMail', 'on') })
      .waitFor();
    expect(await flag(owner.id)).toBe(true);
    await checkBothWidths(page, lang, size);

    await page.reload();
    await box.waitFor();
    expect(await box.isChecked()).toBe(true);
    await box.uncheck();
    await page
      .getByRole('status')
      .filter({ hasText: t('dailyReportMail', 'off') })
      .waitFor();
    expect(await flag(owner.id)).toBe(false);
  });
});
