import { randomBytes, randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { enrollTotp, enrolledFactors } from '../support/second-factor';
import { sandboxPaymentId, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { checkedTabs, type TabOptions } from './browser';
import {
  checkBothWidths,
  DESKTOP,
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
 * The Unresolved payments page of the merchant dashboard (docs/dashboard.md, docs/money.md "Unresolved payments"), in
 * real Chromium against the whole system: late payments made through the sandbox provider (a paid callback after the
 * link was canceled) are listed, one settled and one refunded to the buyer's address after confirming, a resolve of one
 * resolved meanwhile answered with the API's 409 in the dialog; a viewer reads the list and resolves nothing.
 */

let sys: TestSystem;
let browser: Browser;
let merchant: TestMerchant;

/** A valid TRON address (USDT-TRC20), and one with a letter changed: well-formed, wrong checksum. */
const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const MISTYPED_TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6T';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
  ({ sys, browser } = await startDashboard());
  merchant = await sys.merchant();
}, 60_000);
afterAll(() => stopDashboard({ sys, browser }));
/** Every tab is checked after each test: it talked to nobody but the gateway, broke no CSP rule, threw nothing. */
const openCheckedTab = checkedTabs(
  () => browser,
  () => sys.baseUrl,
);

const tab = async (options: TabOptions): Promise<Page> => {
  const t = await openCheckedTab(options);
  return t.page;
};

interface Unresolved {
  id: string;
  payment_link_id: string;
  status: string;
  reason: string;
  amount: string;
  payer_currency: string | null;
  refund_id: string | null;
}

/**
 * A late payment of a live link of the shop: the buyer chose how to pay, the link was canceled, then the sandbox
 * provider says the money arrived. Returns the unresolved payment the links service recorded.
 */
const latePayment = async (shop: TestShop, method: { method: 'sbp' } | { method: 'crypto'; network: string }): Promise<Unresolved> => {
  const created = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount: '1200.00' }, { headers: merchant.keys });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect((await sys.http.post(`/p/${id}/select`, method)).status).toBe(200);
  expect((await sys.http.post(`/merchant/v1/payment-links/${id}/cancel`, {}, { headers: merchant.keys })).status).toBe(200);
  expect((await sys.providerCallback(sandboxPaymentId(id), 'paid')).status).toBe(200);
  const listed = await sys.http.get(`/merchant/v1/unresolved-payments?shop_id=${shop.id}&limit=100`, { headers: merchant.keys });
  expect(listed.status).toBe(200);
  const found = (listed.body.unresolved_payments as Unresolved[]).filter((u) => u.payment_link_id === id);
  expect(found).toEqual([expect.objectContaining({ reason: 'late', status: 'unresolved' })]);
  return found[0]!;
};

const readUnresolved = async (id: string): Promise<Unresolved> => {
  const res = await sys.http.get(`/merchant/v1/unresolved-payments/${id}`, { headers: merchant.keys });
  expect(res.status).toBe(200);
  return res.body as Unresolved;
};

const signIn = async (page: Page, lang: Language, email: string, password: string): Promise<void> => {
  const t = words(lang);
  await page.goto(`${sys.baseUrl}/dashboard/login`);
  await page.getByLabel(t('email')).fill(email);
  await page.getByLabel(t('password')).fill(password);
  await page.getByRole('button', { name: t('signIn'), exact: true }).click();
  const links = h1(page).filter({ hasText: t('homeTitle') });
  const secondStep = page.getByTestId('second-step');
  await links.or(secondStep).waitFor();
  // Settling and refunding need a second factor verified in the last 10 minutes (step-up, docs/adr/0028): the first
  // sign-in turns TOTP on through the API, which steps the session up; a later one answers the second step with a
  // recovery code, which does too. The second step and the step-up dialog are dashboard-security.test.ts's.
  if (await secondStep.isVisible()) {
    const code = enrolledFactors(email)?.recoveryCodes.pop();
    if (code === undefined) throw new Error(`${email} has no recovery code left that this test knows`);
    await page.getByRole('button', { name: t('secondStep', 'useRecoveryCode'), exact: true }).click();
    await page.getByLabel(t('secondStep', 'recoveryCode'), { exact: true }).fill(code);
    await page.getByRole('button', { name: t('signIn'), exact: true }).click();
    await links.waitFor();
    return;
  }
  const sid = (await page.context().cookies(sys.baseUrl)).find((c) => c.name === 'sid');
  if (!sid) throw new Error('no session cookie after signing in');
  await enrollTotp(sys.http.call, sid.value, email);
};

/** To the page through the menu, then its list narrowed to the shop (each test's own payments). */
const openForShop = async (page: Page, lang: Language, shop: TestShop): Promise<void> => {
  const t = words(lang);
  await page.getByRole('link', { name: t('navUnresolved'), exact: true }).click();
  await h1(page)
    .filter({ hasText: t('unresolvedTitle') })
    .waitFor();
  await page.locator('.loading').first().waitFor({ state: 'detached' });
  await page.getByLabel(t('shop')).selectOption(String(shop.id));
  const filtered = page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/api/v1/unresolved-payments' && new URL(r.url()).searchParams.get('shop_id') === String(shop.id),
  );
  await page.getByRole('button', { name: t('apply') }).click();
  expect((await filtered).status()).toBe(200);
};

const rowOf = (page: Page, u: Unresolved) => page.getByTestId('unresolved-table').locator('tbody tr', { hasText: u.payment_link_id.slice(0, 8) });

/** Each flow in Russian on the phone and in English at desktop width, every state it reaches checked at both widths (ADR 0027). */
describe.each(FLOW_COMBOS)('unresolved payments in the dashboard, $lang at $size.width px', ({ lang, locale, size }) => {
  const t = words(lang);
  const check = (page: Page, name?: string): Promise<void> => checkBothWidths(page, lang, size, name);

  it('late payments listed; one settled, one refunded to the buyer’s address (a mistyped one refused beside its field), one resolved meanwhile answered 409 in the dialog', async () => {
    const shop = await sys.shop(merchant.id, { feePayer: 'merchant', sbpBps: 300, cryptoBps: 300 });
    const toSettle = await latePayment(shop, { method: 'sbp' });
    const toRefund = await latePayment(shop, { method: 'crypto', network: 'USDT-TRC20' });
    const meanwhile = await latePayment(shop, { method: 'sbp' });
    expect(toRefund.payer_currency).not.toBeNull();
    const page = await tab({ locale, ...size });
    await signIn(page, lang, merchant.email, merchant.password);
    await openForShop(page, lang, shop);

    // All three, newest first, each unresolved with its Settle and Refund.
    const rows = page.getByTestId('unresolved-table').locator('tbody tr');
    await rows.nth(2).waitFor();
    expect(await rows.count()).toBe(3);
    for (const u of [meanwhile, toRefund, toSettle]) {
      const row = rowOf(page, u);
      expect(await row.getAttribute('data-type')).toBe('unresolved');
      expect(await row.innerText()).toContain(t('unresolvedReason', 'late'));
      expect(await row.getByRole('button', { name: t('unresolvedSettle') }).count()).toBe(1);
    }
    await expectListReadsAtWidth(page, 'unresolved-table', size.width);
    await check(page, 'flow-unresolved-en');
    // The page's own screenshots for docs/dashboard.md ("Every page"), in this flow's language at both widths.
    for (const width of [PHONE, DESKTOP]) {
      await page.setViewportSize(width);
      await inspect(page, `unresolved-${lang}-${width.width}`);
    }
    await page.setViewportSize(size);

    // Settle: the dialog names the amount and opens on Cancel; the POST carries an Idempotency-Key.
    await rowOf(page, toSettle)
      .getByRole('button', { name: t('unresolvedSettle') })
      .click();
    const settleDialog = page.getByRole('dialog', { name: t('unresolvedSettleTitle') });
    await settleDialog.waitFor();
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe(t('cancel'));
    await check(page, 'flow-unresolved-settle-dialog-en');
    const settled = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/api/v1/unresolved-payments/${toSettle.id}/settle`));
    await settleDialog.getByRole('button', { name: t('unresolvedSettleYes') }).click();
    expect((await settled).headers()['idempotency-key']).toMatch(UUID);
    await page
      .locator('.notice')
      .filter({ hasText: t('unresolvedSettled') })
      .waitFor();
    await page
      .getByTestId('unresolved-table')
      .locator('tbody tr[data-type=settled]', { hasText: toSettle.payment_link_id.slice(0, 8) })
      .waitFor();
    expect(await rowOf(page, toSettle).getByRole('button').count()).toBe(0);
    expect(await readUnresolved(toSettle.id)).toMatchObject({ status: 'settled' });
    const balance = await sys.http.get(`/merchant/v1/balance?shop_id=${shop.id}`, { headers: merchant.keys });
    expect(balance.body.available).not.toBe('0.00');

    // Refund of the crypto one: the buyer's address is asked; a mistyped one is refused beside the field, nothing resolved.
    await rowOf(page, toRefund)
      .getByRole('button', { name: t('unresolvedRefund') })
      .click();
    const refundDialog = page.getByRole('dialog', { name: t('unresolvedRefundTitle') });
    await refundDialog.waitFor();
    const destination = refundDialog.getByLabel(t('destination'));
    await refundDialog.getByRole('button', { name: t('unresolvedRefundYes') }).click();
    await refundDialog
      .locator('#unresolved-destination-error')
      .filter({ hasText: t('required') })
      .waitFor();
    await destination.fill(MISTYPED_TRON_ADDRESS);
    await refundDialog.getByRole('button', { name: t('unresolvedRefundYes') }).click();
    await refundDialog
      .locator('#unresolved-destination-error')
      .filter({ hasText: t('unresolvedDestinationInvalid') })
      .waitFor();
    expect(await destination.getAttribute('aria-invalid')).toBe('true');
    expect(await refundDialog.locator('.error[role=alert]').count()).toBe(0);
    await check(page, 'flow-unresolved-refund-refused-en');
    expect(await readUnresolved(toRefund.id)).toMatchObject({ status: 'unresolved' });
    await destination.fill(TRON_ADDRESS);
    const refunded = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/api/v1/unresolved-payments/${toRefund.id}/refund`));
    await refundDialog.getByRole('button', { name: t('unresolvedRefundYes') }).click();
    expect((await refunded).postDataJSON()).toEqual({ destination: TRON_ADDRESS });
    await page
      .locator('.notice')
      .filter({ hasText: t('unresolvedRefunded') })
      .waitFor();
    await page
      .getByTestId('unresolved-table')
      .locator('tbody tr[data-type=refunded]', { hasText: toRefund.payment_link_id.slice(0, 8) })
      .waitFor();
    const refundedRecord = await readUnresolved(toRefund.id);
    expect(refundedRecord).toMatchObject({ status: 'refunded', refund_id: expect.stringMatching(UUID) });
    const refund = await sys.http.get(`/merchant/v1/refunds/${refundedRecord.refund_id}`, { headers: merchant.keys });
    expect(refund.body).toMatchObject({ destination: TRON_ADDRESS, payment_link_id: toRefund.payment_link_id });

    // Settled elsewhere while the page still offers it: the second resolve is the API's 409, said in the dialog, and
    // the list is read again so the row shows what happened.
    const elsewhere = await sys.http.post(
      `/merchant/v1/unresolved-payments/${meanwhile.id}/settle`,
      {},
      { headers: { ...merchant.keys, 'Idempotency-Key': randomUUID() } },
    );
    expect(elsewhere.status).toBe(200);
    await rowOf(page, meanwhile)
      .getByRole('button', { name: t('unresolvedSettle') })
      .click();
    await settleDialog.waitFor();
    await settleDialog.getByRole('button', { name: t('unresolvedSettleYes') }).click();
    await settleDialog
      .locator('[role=alert]')
      .filter({ hasText: t('errors', 'unresolved_payment.err.already_resolved') })
      .waitFor();
    await check(page, 'flow-unresolved-already-resolved-en');
    await settleDialog.getByRole('button', { name: t('cancel') }).click();
    await settleDialog.waitFor({ state: 'hidden' });
    await page
      .getByTestId('unresolved-table')
      .locator('tbody tr[data-type=settled]', { hasText: meanwhile.payment_link_id.slice(0, 8) })
      .waitFor();
    // The earlier notice went when this resolve began, and the refused one leaves none.
    expect(await page.locator('.notice').count()).toBe(0);

    // Only the unresolved ones: none is left.
    await page.getByLabel(t('status')).selectOption('unresolved');
    await page.getByRole('button', { name: t('apply') }).click();
    await page.getByText(t('unresolvedEmpty')).waitFor();
    await check(page);
  }, 180_000);

  it('a viewer reads the list and resolves nothing: no buttons on the page, and the API refuses a settle with 403', async () => {
    const shop = await sys.shop(merchant.id);
    const payment = await latePayment(shop, { method: 'sbp' });
    // The owner invites a viewer, who joins with a password of their own.
    const owner = { Authorization: `Bearer ${await sys.login(merchant)}` };
    const email = `viewer-${randomBytes(6).toString('hex')}@example.com`;
    expect((await sys.http.post('/api/v1/invitations', { email, role: 'viewer' }, { headers: owner })).status).toBe(201);
    const token = /token=([A-Za-z0-9_-]{43})/.exec((await sys.mail.waitForMailTo(email)).text)?.[1];
    expect(token).toBeDefined();
    const joined = await sys.http.post('/api/v1/invitations/accept', { token, password: 'the viewer passphrase' });
    expect(joined.status).toBe(200);

    const page = await tab({ locale, ...size });
    await signIn(page, lang, email, 'the viewer passphrase');
    await openForShop(page, lang, shop);
    const row = rowOf(page, payment);
    await row.waitFor();
    expect(await row.getAttribute('data-type')).toBe('unresolved');
    await page.getByText(t('unresolvedReadOnly'), { exact: false }).waitFor();
    expect(await page.getByTestId('unresolved-table').getByRole('button').count()).toBe(0);
    expect(
      await page
        .getByTestId('unresolved-table')
        .getByRole('columnheader', { name: t('actions') })
        .count(),
    ).toBe(0);
    await check(page, 'flow-unresolved-read-only-en');

    const viewer = { Authorization: `Bearer ${joined.body.session_token as string}`, 'Idempotency-Key': randomUUID() };
    const refused = await sys.http.post(`/api/v1/unresolved-payments/${payment.id}/settle`, {}, { headers: viewer });
    expect({ status: refused.status, code: refused.body.error?.code }).toEqual({ status: 403, code: 'common.err.forbidden' });
    expect(await readUnresolved(payment.id)).toMatchObject({ status: 'unresolved' });
  }, 120_000);
});
