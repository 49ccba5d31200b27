import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { createClient } from 'redis';
import { enrolledFactors, totpCode } from '../support/second-factor';
import { sandboxPaymentId, type TestMerchant, type TestShop, type TestSystem } from '../support/system';
import { checkedTabs } from './browser';
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
 * The dashboard's payout pages (docs/dashboard.md "Payouts", docs/payouts.md), in real Chromium against the whole
 * system: a destination added after the step-up dialog (a mistyped INN refused beside its field first), payouts made
 * with step-up, a large one approved by a second member and one rejected with a reason, one canceled, a test payout
 * paid by the simulator, the daily report downloaded, what each role is shown; and both pages checked with axe and for
 * fit at 360 px and desktop width in Russian and English. One system; the hold and the cool-down are 0 here, and the
 * approval threshold 1,000.00, so every state is reached without waiting. Time for step-up is moved by rewriting the
 * session's second-factor time in Redis (as dashboard-security.test.ts does), never by sleeping.
 */

jest.setTimeout(120_000);

let sys: TestSystem;
let browser: Browser;
let redis: ReturnType<typeof createClient>;

/** A bank account whose INN, KPP, BIK and account pass their check digits (tests/integration/payouts.test.ts). */
const BANK = { recipient: 'ООО «Ромашка»', inn: '7707083893', kpp: '773601001', bik: '044525225', account: '40702810238000001234' };
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

/** A member of an account: their own user, a stepped-up session switched to the account. */
interface Member {
  user: TestMerchant;
  token: string;
}

/** An account of the test: its shop (live 5,000.00 and test 3,000.00 credited), its owner and a finance member. */
interface Account {
  merchant: TestMerchant;
  shop: TestShop;
  owner: Member;
  finance: Member;
}

async function member(merchant: TestMerchant, role: string): Promise<Member> {
  const user = await sys.merchant();
  const [row] = await sys.sql<{ id: string }>('SELECT id FROM gateway.users WHERE email = $1', [user.email]);
  await sys.sql('INSERT INTO gateway.memberships (user_id, merchant_id, role) VALUES ($1, $2, $3)', [row!.id, merchant.id, role]);
  const token = await sys.login(user);
  expect((await sys.http.post('/api/v1/auth/switch', { merchant_id: merchant.id }, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(
    200,
  );
  return { user, token };
}

/** A paid link of the shop (the client pays the fee, so the shop is credited all of it). */
async function credit(shop: TestShop, amount: string, keys: Record<string, string>): Promise<void> {
  const created = await sys.http.post('/merchant/v1/payment-links', { shop_id: shop.id, amount }, { headers: keys });
  expect(created.status).toBe(201);
  expect((await sys.providerCallback(sandboxPaymentId(created.body.id as string), 'paid')).status).toBe(200);
}

async function account(): Promise<Account> {
  const { merchant, shop } = await sys.merchantWithShop({ feePayer: 'client' });
  await Promise.all([credit(shop, '5000.00', merchant.keys), credit(shop, '3000.00', merchant.testKeys)]);
  const [owner, finance] = await Promise.all([sys.login(merchant), member(merchant, 'finance')]);
  return { merchant, shop, owner: { user: merchant, token: owner }, finance };
}

/** The account the last flow made, whose pages the per-page checks read (lists with rows in them). */
let lastAccount: Account | undefined;

beforeAll(async () => {
  ({ sys, browser } = await startDashboard({
    env: { PAYOUT_HOLD_HOURS: '0', PAYOUT_DESTINATION_COOLDOWN_HOURS: '0', PAYOUT_APPROVAL_THRESHOLD: '1000.00' },
  }));
  redis = createClient({ url: sys.env.REDIS_URL });
  await redis.connect();
}, 90_000);
afterAll(async () => {
  await redis?.close();
  await stopDashboard({ sys, browser });
});
const openCheckedTab = checkedTabs(
  () => browser,
  () => sys.baseUrl,
);

/** A tab signed in with `who`'s session (its cookie, as the sign-in would set it), on `path` of the dashboard. */
async function signedIn(who: Member, lang: Language, size: typeof PHONE, path: string): Promise<Page> {
  const { page } = await openCheckedTab({ locale: lang === 'ru' ? 'ru-RU' : 'en-US', ...size });
  await page.context().addCookies([{ name: 'sid', value: who.token, url: sys.baseUrl, httpOnly: true, sameSite: 'Strict' }]);
  await page.goto(`${sys.baseUrl}/dashboard${path}`);
  return page;
}

/** Makes the session as if its second factor was verified 11 minutes ago: the next money move asks for it again. */
async function staleStepUp(who: Member): Promise<void> {
  const key = `${sys.env.REDIS_KEY_PREFIX ?? ''}session:${createHash('sha256').update(who.token, 'utf8').digest('hex')}`;
  const stored = JSON.parse((await redis.get(key)) ?? 'null') as Record<string, unknown> | null;
  if (!stored) throw new Error('no stored session');
  await redis.set(key, JSON.stringify({ ...stored, second_factor_at: Date.now() - 11 * 60 * 1000 }), { KEEPTTL: true });
}

/**
 * Answers the step-up dialog with the authenticator's code. The server takes each 30-second step once, so the record
 * of the last step used goes back a minute first (as if the last code had been used then): no test waits for a step.
 */
async function answerStepUp(page: Page, lang: Language, who: Member): Promise<void> {
  const t = words(lang);
  const dialog = page.getByTestId('step-up');
  await dialog.waitFor();
  await sys.sql(
    'UPDATE gateway.user_totp SET last_used_step = last_used_step - 2 WHERE user_id = (SELECT id FROM gateway.users WHERE lower(email) = lower($1))',
    [who.user.email],
  );
  await dialog.getByLabel(t('stepUp', 'code'), { exact: true }).fill(totpCode(enrolledFactors(who.user.email)!.secret));
  await dialog.getByRole('button', { name: t('stepUp', 'verify'), exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}

const waitForTitle = (page: Page, title: string) => h1(page).filter({ hasText: title }).waitFor();
const notice = (page: Page, text: string) => page.locator('.notice').filter({ hasText: text }).waitFor();
const apiPayout = async (who: Member, id: string): Promise<Record<string, unknown>> =>
  (await sys.http.get(`/api/v1/payouts/${id}`, { headers: { Authorization: `Bearer ${who.token}` } })).body as Record<string, unknown>;

/** A rouble amount as the dashboard writes it (services/gateway/dashboard/src/format.ts): `5 000,00 ₽`, `5,000.00 ₽`. */
const rub = (text: string, lang: Language): string => {
  const [units = '', cents = ''] = text.split('.');
  const grouped = units.replace(/\B(?=(\d{3})+(?!\d))/g, lang === 'ru' ? '\u00a0' : ',');
  return lang === 'ru' ? `${grouped},${cents}\u00a0₽` : `${grouped}.${cents}\u00a0₽`;
};
/** The figure alone, as a row's text holds it. */
const figure = (text: string, lang: Language): string => rub(text, lang).slice(0, -2);

/** The payout the page just made: the POST's answer. */
const madePayout = (page: Page) =>
  page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/v1/payouts' && r.status() === 201);

/** Each flow in Russian on the phone and in English at desktop width, every state it reaches checked at both widths (ADR 0027). */
describe.each(FLOW_COMBOS)('payouts in the dashboard, $lang at $size.width px', ({ lang, size }) => {
  const t = words(lang);
  const check = (page: Page, name?: string): Promise<void> => checkBothWidths(page, lang, size, name);
  let acc: Account;
  let owner: Member;
  let finance: Member;
  let shop: TestShop;
  let large = '';
  beforeAll(async () => {
    acc = await account();
    ({ owner, finance, shop } = acc);
    lastAccount = acc;
  });

  it('adds a bank account after step-up (a mistyped INN refused beside its field), makes payouts with step-up (too small an amount refused beside its field), cancels one, and downloads the daily report', async () => {
    await staleStepUp(owner);
    const page = await signedIn(owner, lang, size, '/payout-destinations');
    await waitForTitle(page, t('destinationsTitle'));
    const nav = page.getByRole('navigation');
    expect(await nav.getByRole('link', { name: t('navPayouts'), exact: true }).count()).toBe(1);
    await page.getByText(t('destinationsEmpty')).waitFor();

    const form = page.getByRole('form', { name: t('destinationNew') });
    await form.getByLabel(t('destinationRecipient')).fill(BANK.recipient);
    await form.getByLabel(t('destinationInn')).fill('7707083894');
    await form.getByLabel(t('destinationKpp')).fill(BANK.kpp);
    await form.getByLabel(t('destinationBik')).fill(BANK.bik);
    await form.getByLabel(t('destinationAccount')).fill(BANK.account);
    await form.getByRole('button', { name: t('destinationAdd') }).click();
    // Step-up first (the server refuses a stale session before it reads the body), then the server's judgement.
    await answerStepUp(page, lang, owner);
    await form
      .locator('#dest-inn-error')
      .filter({ hasText: t('destinationFieldInvalid', 'bank_account.inn') })
      .waitFor();
    expect(await form.getByLabel(t('destinationInn')).getAttribute('aria-invalid')).toBe('true');
    expect(await form.locator('.error[role=alert]').count()).toBe(0);
    await check(page, 'flow-payout-destination-refused-en');

    await form.getByLabel(t('destinationInn')).fill(BANK.inn);
    await form.getByRole('button', { name: t('destinationAdd') }).click();
    await notice(page, t('destinationAdded'));
    const row = page.getByTestId('destination-table').locator('tbody tr');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    // A cool-down of 0 here: the destination is active at once, and says from when.
    expect(await row.first().getAttribute('data-type')).toBe('active');
    expect(await row.first().innerText()).toContain('•••• 1234');
    await check(page, 'flow-payout-destinations-en');

    // After step-up again: an amount below the smallest payout is the server's 400, beside the field in the page's
    // words; then one below the approval threshold, approved at once.
    await page.getByRole('link', { name: t('navPayouts'), exact: true }).click();
    await waitForTitle(page, t('payoutsTitle'));
    const create = page.getByRole('form', { name: t('payoutNew') });
    await create
      .locator('#payout-shop-hint')
      .filter({ hasText: figure('5000.00', lang) })
      .waitFor();
    await staleStepUp(owner);
    const amount = create.getByLabel(`${t('amount')}, ₽`);
    await amount.fill('50');
    await create.getByRole('button', { name: t('payoutCreate') }).click();
    await answerStepUp(page, lang, owner);
    await create
      .locator('#payout-amount-error')
      .filter({ hasText: t('payoutAmountInvalid') })
      .waitFor();
    expect(await amount.getAttribute('aria-invalid')).toBe('true');
    await amount.fill('500');
    let made = madePayout(page);
    await create.getByRole('button', { name: t('payoutCreate') }).click();
    const small = (await (await made).json()) as { id: string; status: string };
    expect(small.status).toBe('approved');
    await notice(page, t('payoutCreated', 'approved'));
    await create
      .locator('#payout-shop-hint')
      .filter({ hasText: figure('4500.00', lang) })
      .waitFor();

    // A large one waits for another member; its maker is shown no Approve, but may reject or cancel it.
    await amount.fill('2000.00');
    made = madePayout(page);
    await create.getByRole('button', { name: t('payoutCreate') }).click();
    large = ((await (await made).json()) as { id: string }).id;
    await notice(page, t('payoutCreated', 'pending_approval'));
    const queued = page.getByTestId('payout-queue').locator('tbody tr');
    await queued.first().waitFor();
    expect(await queued.count()).toBe(1);
    expect(await queued.first().innerText()).toContain(t('payoutYours'));
    expect(
      await queued
        .first()
        .getByRole('button', { name: t('payoutApprove') })
        .count(),
    ).toBe(0);
    expect(
      await queued
        .first()
        .getByRole('button', { name: t('payoutReject') })
        .count(),
    ).toBe(1);
    await expectListReadsAtWidth(page, 'payout-table', size.width);
    await check(page, 'flow-payouts-en');

    // Cancel the approved one, asked first; its money is back.
    const smallRow = page.getByTestId('payout-table').locator('tbody tr[data-type=approved]');
    await smallRow.getByRole('button', { name: t('payoutCancel'), exact: true }).click();
    const cancelDialog = page.getByRole('dialog', { name: t('payoutCancelTitle') });
    await cancelDialog.waitFor();
    await cancelDialog.getByRole('button', { name: t('payoutCancelYes') }).click();
    await notice(page, t('payoutDone', 'cancel'));
    await page.getByTestId('payout-table').locator('tbody tr[data-type=canceled]').waitFor();
    expect(await apiPayout(owner, small.id)).toMatchObject({ status: 'canceled' });

    // The status filter narrows the list to the canceled one.
    await page.getByLabel(t('status')).selectOption('canceled');
    const filtered = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/v1/payouts' && new URL(r.url()).searchParams.get('status') === 'canceled',
    );
    await page.getByRole('button', { name: t('apply') }).click();
    expect((await filtered).status()).toBe(200);
    await page.waitForFunction(`document.querySelectorAll('[data-testid="payout-table"] tbody tr').length === 1`);
    expect(await page.getByTestId('payout-table').locator('tbody tr[data-type=canceled]').count()).toBe(1);

    // The daily report of today, as a file.
    const report = page.getByTestId('daily-report');
    const download = page.waitForEvent('download');
    await report.getByRole('button', { name: t('dailyReportDownload') }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(new RegExp(`^daily-report-${shop.id}-\\d{4}-\\d{2}-\\d{2}-live\\.csv$`));
    const csv = await readFile(await file.path(), 'utf8');
    expect(csv).toMatch(/\r\ntotal,|,total,/);
  });

  it('a second member approves the large payout and rejects another with a reason; a viewer reads the lists only; a developer has no payout pages', async () => {
    const other = await sys.http.post(
      '/api/v1/payouts',
      { shop_id: shop.id, amount: '1500.00', destination_id: ((await apiPayout(owner, large)).destination as { id: string }).id },
      { headers: { Authorization: `Bearer ${owner.token}` } },
    );
    expect(other.status).toBe(201);
    expect(other.body.status).toBe('pending_approval');

    await staleStepUp(finance);
    const page = await signedIn(finance, lang, size, '/payouts');
    await waitForTitle(page, t('payoutsTitle'));
    const queue = page.getByTestId('payout-queue');
    await queue.locator('tbody tr').nth(1).waitFor();
    const largeRow = queue.locator('tbody tr', { hasText: figure('2000.00', lang) });
    await largeRow.getByRole('button', { name: t('payoutApprove') }).click();
    await answerStepUp(page, lang, finance);
    await notice(page, t('payoutDone', 'approve'));
    expect(await apiPayout(owner, large)).toMatchObject({ status: 'approved' });

    // Reject asks for the reason.
    const otherRow = queue.locator('tbody tr', { hasText: figure('1500.00', lang) });
    await otherRow.getByRole('button', { name: t('payoutReject') }).click();
    const rejectDialog = page.getByRole('dialog', { name: t('payoutRejectTitle') });
    await rejectDialog.waitFor();
    await rejectDialog.getByRole('button', { name: t('payoutRejectYes') }).click();
    await rejectDialog
      .locator('#payout-reason-error')
      .filter({ hasText: t('required') })
      .waitFor();
    await check(page, 'flow-payout-reject-en');
    await rejectDialog.getByLabel(t('payoutRejectReason')).fill('Wrong account');
    await rejectDialog.getByRole('button', { name: t('payoutRejectYes') }).click();
    await notice(page, t('payoutDone', 'reject'));
    await page.getByText(t('payoutQueueEmpty')).waitFor();
    expect(await apiPayout(owner, other.body.id as string)).toMatchObject({ status: 'rejected', failure_reason: 'Wrong account' });
    await page.getByTestId('payout-table').locator('tbody tr[data-type=rejected]', { hasText: 'Wrong account' }).waitFor();

    // A viewer: both pages in the menu, the lists, no form and no button.
    const viewer = await member(acc.merchant, 'viewer');
    const read = await signedIn(viewer, lang, size, '/payouts');
    await waitForTitle(read, t('payoutsTitle'));
    await read.getByTestId('payout-table').locator('tbody tr').first().waitFor();
    await read.getByText(t('payoutsReadOnly'), { exact: false }).waitFor();
    expect(await read.getByRole('form', { name: t('payoutNew') }).count()).toBe(0);
    expect(await read.getByTestId('payout-table').getByRole('button').count()).toBe(0);
    expect(
      await read
        .getByTestId('payout-table')
        .getByRole('columnheader', { name: t('actions') })
        .count(),
    ).toBe(0);
    await check(read, 'flow-payouts-read-only-en');
    await read.getByRole('link', { name: t('navPayoutDestinations'), exact: true }).click();
    await waitForTitle(read, t('destinationsTitle'));
    await read.getByTestId('destination-table').locator('tbody tr').first().waitFor();
    expect(await read.getByRole('form', { name: t('destinationNew') }).count()).toBe(0);
    expect(await read.getByTestId('destination-table').getByRole('button').count()).toBe(0);

    // A developer reads no money: neither page is in the menu.
    const developer = await member(acc.merchant, 'developer');
    const dev = await signedIn(developer, lang, size, '/links');
    await waitForTitle(dev, t('linksTitle'));
    expect(
      await dev
        .getByRole('navigation')
        .getByRole('link', { name: t('navPayouts'), exact: true })
        .count(),
    ).toBe(0);
    expect(
      await dev
        .getByRole('navigation')
        .getByRole('link', { name: t('navPayoutDestinations'), exact: true })
        .count(),
    ).toBe(0);
  });

  it('in test mode: a crypto address added, shown in its cool-down and not offered until it ends, a test payout made, paid by the simulator', async () => {
    // The live balance after the first two tests: 5,000.00 less the approved 2,000.00 (the canceled and the rejected
    // ones came back), all of it available (the hold is 0 here), as the shop's page shows it.
    const page = await signedIn(owner, lang, size, `/shops/${shop.id}`);
    const balance = page.getByTestId('shop-balance');
    await balance.getByTestId('balance-total').waitFor();
    expect(await balance.getByTestId('balance-total').innerText()).toBe(rub('3000.00', lang));
    expect(await balance.getByTestId('balance-available').innerText()).toBe(rub('3000.00', lang));
    expect(await balance.getByTestId('balance-pending').innerText()).toBe(rub('0.00', lang));

    await page.getByRole('link', { name: t('navPayoutDestinations'), exact: true }).click();
    await waitForTitle(page, t('destinationsTitle'));
    await page.getByTestId('mode-switch').click();
    await page.getByTestId('test-banner').waitFor();
    await page.getByText(t('destinationsEmpty')).waitFor();
    const form = page.getByRole('form', { name: t('destinationNew') });
    await form.getByLabel(t('destinationType', 'crypto_address')).check();
    await form.getByLabel(t('destinationNetwork')).selectOption('USDT-TRC20');
    await form.getByLabel(t('destinationAddress'), { exact: true }).fill(TRON);
    const added = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/v1/payout-destinations');
    await form.getByRole('button', { name: t('destinationAdd') }).click();
    const destinationId = ((await (await added).json()) as { id: string }).id;
    await notice(page, t('destinationAdded'));

    // The cool-down is 0 here; the gateway reads it from created_at, so one an hour ahead is an hour from its end.
    await sys.sql(`UPDATE gateway.payout_destinations SET created_at = now() + interval '1 hour' WHERE id = $1`, [destinationId]);
    await page.reload();
    const coolingDown = page.getByTestId('destination-table').locator('tbody tr[data-type=pending]');
    await coolingDown.waitFor();
    expect(await coolingDown.innerText()).toContain(t('destinationStatus', 'pending'));
    // "Usable from" is the cool-down's end, an hour ahead.
    expect(Date.parse((await coolingDown.locator('time').first().getAttribute('datetime')) ?? '')).toBeGreaterThan(Date.now() + 50 * 60 * 1000);
    await check(page, 'flow-payout-destination-cool-down-en');
    await page.getByRole('link', { name: t('navPayouts'), exact: true }).click();
    await waitForTitle(page, t('payoutsTitle'));
    const create = page.getByRole('form', { name: t('payoutNew') });
    await create.getByText(t('payoutNoDestination')).waitFor();
    expect(await create.getByRole('button', { name: t('payoutCreate') }).isDisabled()).toBe(true);

    await sys.sql(`UPDATE gateway.payout_destinations SET created_at = now() - interval '1 minute' WHERE id = $1`, [destinationId]);
    await page.reload();
    await waitForTitle(page, t('payoutsTitle'));
    await create
      .locator('#payout-shop-hint')
      .filter({ hasText: figure('3000.00', lang) })
      .waitFor();
    await create.getByLabel(`${t('amount')}, ₽`).fill('300');
    const made = madePayout(page);
    await create.getByRole('button', { name: t('payoutCreate') }).click();
    const payout = (await (await made).json()) as { id: string; livemode: boolean };
    expect(payout.livemode).toBe(false);
    const row = page.getByTestId('payout-table').locator('tbody tr[data-type=approved]');
    await row.getByRole('button', { name: t('payoutSimulatePaid') }).click();
    await notice(page, t('payoutDone', 'paid'));
    await page.getByTestId('payout-table').locator('tbody tr[data-type=paid]').waitFor();
    await check(page, 'flow-payouts-test-en');
    const paid = await sys.http.get(`/api/v1/payouts/${payout.id}`, { headers: { Authorization: `Bearer ${owner.token}`, 'Pl-Mode': 'test' } });
    expect(paid.body).toMatchObject({ status: 'paid', livemode: false });
  });
});

describe.each(['ru', 'en'] as const)('the payout pages in %s', (lang) => {
  const t = words(lang);
  it('are axe-clean and fit at 360 px and at desktop width (the screenshots of docs/dashboard.md)', async () => {
    for (const [path, title, testId, name] of [
      ['/payouts', 'payoutsTitle', 'payout-table', 'payouts'],
      ['/payout-destinations', 'destinationsTitle', 'destination-table', 'payout-destinations'],
    ] as const) {
      if (!lastAccount) throw new Error('no flow ran before the page checks');
      const page = await signedIn(lastAccount.owner, lang, PHONE, path);
      await waitForTitle(page, t(title));
      await page.getByTestId(testId).locator('tbody tr').first().waitFor();
      for (const size of [PHONE, DESKTOP]) {
        await page.setViewportSize(size);
        await expectListReadsAtWidth(page, testId, size.width);
        await inspect(page, `${name}-${lang}-${size.width}`);
      }
    }
  });
});
