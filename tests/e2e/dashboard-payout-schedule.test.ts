import type { Browser, Page } from 'playwright-core';
import { enrolledFactors } from '../support/second-factor';
import { sandboxPaymentId, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { foreignRequests, openTab, type BuyerTab } from './browser';
import { expectAccessible, expectFits, FLOW_COMBOS, h1, type Language, PHONE, startDashboard, stopDashboard, words } from './dashboard-kit';

/**
 * A shop's automatic payouts in the dashboard (docs/payouts.md, "Automatic payouts"): set in the shop's settings by an
 * owner signed in with a second factor (so step-up is fresh), shown on Home as the next payout with what it would pay
 * now. Russian on a 360 px phone and English at desktop width (ADR 27's flow combinations); axe and the fit checked at
 * each state.
 */

jest.setTimeout(120_000);

let sys: TestSystem;
let browser: Browser;
const tabs: BuyerTab[] = [];
const BANK = { recipient_name: 'ИП Иванов', inn: '500100732259', bik: '044525225', account: '40802810538000005678' };

beforeAll(async () => {
  ({ sys, browser } = await startDashboard({ env: { PAYOUT_DESTINATION_COOLDOWN_HOURS: '0' } }));
}, 90_000);

interface Owner {
  merchant: TestMerchant;
  shop: TestShop;
  destinationId: string;
}

/** An owner with TOTP (enrolled by the API's session), a shop holding 750.00 and an active destination. */
async function owner(): Promise<Owner> {
  const { merchant, shop } = await sys.merchantWithShop({ feePayer: 'client' });
  const auth = { Authorization: `Bearer ${await sys.login(merchant)}` };
  const link = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '750.00' }, { headers: merchant.keys });
  expect((await sys.providerCallback(sandboxPaymentId(link.body.id as string), 'paid')).status).toBe(200);
  const made = await sys.http.post('/api/v1/payout-destinations', { type: 'bank_account', bank_account: BANK }, { headers: auth });
  expect(made.status).toBe(201);
  return { merchant, shop, destinationId: made.body.id as string };
}
afterAll(() => stopDashboard({ sys, browser }));
afterEach(async () => {
  for (const tab of tabs.splice(0)) {
    expect(foreignRequests(tab, sys.baseUrl)).toEqual([]);
    expect(tab.errors.filter((e) => /Content Security Policy|Refused to|Uncaught/i.test(e))).toEqual([]);
    await tab.close();
  }
});

/** Signed in with the password and a recovery code (the owner's second factor), so step-up is fresh. */
async function signedIn(o: Owner, lang: Language, locale: string, size: typeof PHONE): Promise<Page> {
  const t = words(lang);
  const merchant = o.merchant;
  const tab = await openTab(browser, { locale, ...size });
  tabs.push(tab);
  const page = tab.page;
  await page.goto(`${sys.baseUrl}/dashboard/login`);
  await page.getByLabel(t('email')).fill(merchant.email);
  await page.getByLabel(t('password'), { exact: true }).fill(merchant.password);
  await page.getByRole('button', { name: t('signIn'), exact: true }).click();
  await page.getByRole('button', { name: t('secondStep', 'useRecoveryCode'), exact: true }).click();
  const code = enrolledFactors(merchant.email)?.recoveryCodes.shift();
  if (!code) throw new Error('the owner has no recovery code left');
  await page.getByLabel(t('secondStep', 'recoveryCode'), { exact: true }).fill(code);
  await page.getByRole('button', { name: t('signIn'), exact: true }).click();
  await h1(page)
    .filter({ hasText: t('homeTitle') })
    .waitFor();
  return page;
}

const open = async (page: Page, path: string): Promise<void> => {
  await page.goto(sys.baseUrl + path);
  await h1(page).waitFor();
  await page.locator('.loading').first().waitFor({ state: 'detached' });
};

describe.each(FLOW_COMBOS)('automatic payouts in $lang at $size.width px', ({ lang, locale, size }) => {
  it("sets the shop's payout schedule in its settings and shows the next payout on Home", async () => {
    const t = words(lang);
    const o = await owner();
    const { merchant, shop, destinationId } = o;
    const page = await signedIn(o, lang, locale, size);
    // Manual by default, on Home too.
    await page.getByTestId('next-payout').getByText(t('nextPayoutManual')).waitFor();

    await open(page, `/dashboard/shops/${shop.id}`);
    const section = page.getByTestId('payout-schedule');
    await section.getByLabel(t('payoutInterval'), { exact: true }).selectOption('daily');
    // A minimum below 100.00 is refused beside the field, before anything is sent.
    await section.getByLabel(t('payoutMinimum'), { exact: true }).fill('50');
    await section.getByRole('button', { name: t('payoutScheduleSave') }).click();
    await section.getByText(t('payoutMinimumBad')).waitFor();
    await expectAccessible(page);

    await section.getByLabel(t('payoutSchedulePayTo'), { exact: true }).selectOption(destinationId);
    await section.getByLabel(t('payoutMinimum'), { exact: true }).fill(lang === 'ru' ? '500,00' : '500.00');
    await section.getByRole('button', { name: t('payoutScheduleSave') }).click();
    await section.getByText(t('payoutScheduleSaved')).waitFor();
    const saved = await sys.http.get(`/merchant/v1/shops/${shop.id}`, { headers: merchant.keys });
    expect(saved.body.payout_schedule).toEqual({ interval: 'daily', destination_id: destinationId, minimum: '500.00' });
    await expectAccessible(page);
    await expectFits(page);

    // Home: the next 10:00 and what it would pay now (750.00 less the fee of 0.00).
    await open(page, '/dashboard/home');
    const next = page.getByTestId('next-payout');
    await next.getByText(t('nextPayoutAmount')).waitFor();
    expect(await next.innerText()).toContain(lang === 'ru' ? '750,00' : '750.00');
    await expectAccessible(page);
    await expectFits(page);
  });
});
