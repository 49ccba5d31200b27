import { randomBytes } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import { steppedUpSession } from '../support/second-factor';
import type { TestMerchant, TestSystem } from '../support/system';
import { checkedTabs } from './browser';
import { checkBothWidths, FLOW_COMBOS, h1, type Language, mailedLink as mailedLinkIn, startDashboard, stopDashboard, words } from './dashboard-kit';

/**
 * Accounts merchants open, recover and share themselves, through the dashboard in Chromium: every mail is read from
 * the system's SMTP catcher as it went out, and its link opened as a person would. Each flow runs in Russian at 360 px
 * and in English at desktop width, every state it reaches checked at both widths (ADR 0027).
 */
let sys: TestSystem;
let browser: Browser;

beforeAll(async () => {
  ({ sys, browser } = await startDashboard());
}, 60_000);
afterAll(() => stopDashboard({ sys, browser }));
/** Every tab is checked after each test: it talked to nobody but the gateway, broke no CSP rule, threw nothing. */
const openCheckedTab = checkedTabs(
  () => browser,
  () => sys.baseUrl,
);

const tab = async (options: { locale: string; width: number; height: number }): Promise<Page> => {
  const t = await openCheckedTab(options);
  return t.page;
};

const newEmail = (): string => `web-${randomBytes(6).toString('hex')}@example.com`;

/** The link to the dashboard's `page` in the n-th such mail to `email`, as a path on the gateway. */
const mailedLink = (email: string, page: string, n = 1): Promise<string> => mailedLinkIn(sys.mail, sys.baseUrl, email, page, n);

const signIn = async (page: Page, lang: Language, email: string, password: string): Promise<void> => {
  const t = words(lang);
  await page.goto(`${sys.baseUrl}/dashboard/login`);
  await page.getByLabel(t('email')).fill(email);
  await page.getByLabel(t('password'), { exact: true }).fill(password);
  await page.getByRole('button', { name: t('signIn'), exact: true }).click();
  await h1(page)
    .filter({ hasText: t('homeTitle') })
    .waitFor();
};

/**
 * An owner signed in with a second factor verified just now, as the team's changes need (step-up, docs/adr/0028):
 * the session is opened and stepped up through the API, and the page given its cookie. Sign-in's second step itself
 * is dashboard-security.test.ts's.
 */
const signInSteppedUp = async (page: Page, lang: Language, user: TestMerchant): Promise<void> => {
  const token = await steppedUpSession(sys.http.call, user);
  await page.context().addCookies([{ name: 'sid', value: token, url: sys.baseUrl, httpOnly: true, sameSite: 'Strict' }]);
  await page.goto(`${sys.baseUrl}/dashboard/links`);
  await h1(page)
    .filter({ hasText: words(lang)('linksTitle') })
    .waitFor();
};

/** The names of the main menu's entries, as the member sees them. */
const menu = (page: Page): Promise<string[]> => page.getByRole('navigation').getByRole('link').allInnerTexts();

describe.each(FLOW_COMBOS)('accounts and teams in the dashboard in $lang at $size.width px', ({ lang, locale, size }) => {
  const t = words(lang);
  const check = (page: Page, name: string): Promise<void> => checkBothWidths(page, lang, size, name);
  const alert = (within: Page | Locator, text: string) => within.getByRole('alert').filter({ hasText: text });

  it('signs up, confirms the email from the mail (resent from the banner), signs in, and resets a forgotten password by mail', async () => {
    const page = await tab({ locale, ...size });
    const email = newEmail();
    const password = `my own passphrase ${lang}`;

    await page.goto(`${sys.baseUrl}/dashboard/login`);
    await page.getByRole('link', { name: t('signUpLink') }).click();
    await h1(page)
      .filter({ hasText: t('signUpTitle') })
      .waitFor();
    // A short password is refused beside its field before anything is sent.
    await page.getByLabel(t('email')).fill(email);
    await page.getByLabel(t('password'), { exact: true }).fill('short');
    await page.getByLabel(t('accountName')).fill(`Tea House ${lang}`);
    await page.getByRole('button', { name: t('signUp'), exact: true }).click();
    await page
      .locator('#password-error')
      .filter({ hasText: t.with('tooShort', 12) })
      .waitFor();
    // A common one is refused by the server, beside the same field, in the page's words.
    await page.getByLabel(t('password'), { exact: true }).fill('password1234');
    await page.getByRole('button', { name: t('signUp'), exact: true }).click();
    await page
      .locator('#password-error')
      .filter({ hasText: t('fieldIssue', 'common_password') })
      .waitFor();
    await check(page, 'accounts-sign-up-en');
    await page.getByLabel(t('password'), { exact: true }).fill(password);
    await page.getByRole('button', { name: t('signUp'), exact: true }).click();
    await page.getByText(t.with('signUpSent', email)).waitFor();
    await check(page, 'accounts-sign-up-sent-en');
    // The mail is in the page's language.
    expect((await sys.mail.waitForMailTo(email)).language).toBe(lang);

    // Signed in before confirming: the banner says what waits, and mails the link again.
    await signIn(page, lang, email, password);
    const banner = page.getByTestId('email-banner');
    await banner.getByRole('button', { name: t('resendConfirmation') }).click();
    await banner.getByText(t('confirmationResent')).waitFor();
    await check(page, 'accounts-email-banner-en');
    const confirmLink = await mailedLink(email, 'confirm-email', 2);
    expect(confirmLink).toMatch(/^\/dashboard\/confirm-email\?token=/);

    await page.goto(sys.baseUrl + confirmLink);
    await page.getByText(t('emailConfirmedNow')).waitFor();
    // The token leaves the address once read.
    expect(new URL(page.url()).search).toBe('');
    await check(page, 'accounts-email-confirmed-en');
    await page.getByRole('link', { name: t('toDashboard') }).click();
    // The new owner's landing page, as at sign-in.
    await h1(page)
      .filter({ hasText: t('homeTitle') })
      .waitFor();
    expect(await banner.count()).toBe(0);
    // A second use of the link is refused in words.
    await page.goto(sys.baseUrl + confirmLink);
    await alert(page, t('errors', 'auth.err.invalid_token')).waitFor();

    // Forgotten password: from the sign-in page, through the mail, to a sign-in with the new one.
    await page.context().clearCookies();
    await page.goto(`${sys.baseUrl}/dashboard/login`);
    await page.getByRole('link', { name: t('forgotPasswordLink') }).click();
    await h1(page)
      .filter({ hasText: t('forgotTitle') })
      .waitFor();
    await page.getByLabel(t('email')).fill(email);
    await page.getByRole('button', { name: t('sendResetLink') }).click();
    await page.getByText(t('resetSent')).waitFor();
    await check(page, 'accounts-forgot-sent-en');
    const resetLink = await mailedLink(email, 'reset-password');
    expect(resetLink).toMatch(/^\/dashboard\/reset-password\?token=/);
    await page.goto(sys.baseUrl + resetLink);
    const fresh = `a fresh passphrase ${lang}`;
    await page.getByLabel(t('newPassword'), { exact: true }).fill(fresh);
    await page.getByLabel(t('repeatPassword')).fill(`${fresh}!`);
    await page.getByRole('button', { name: t('setNewPassword') }).click();
    await page
      .locator('#repeat-error')
      .filter({ hasText: t('passwordsDiffer') })
      .waitFor();
    await page.getByLabel(t('repeatPassword')).fill(fresh);
    await page.getByRole('button', { name: t('setNewPassword') }).click();
    await page.getByText(t('passwordResetDone')).waitFor();
    await check(page, 'accounts-password-reset-en');
    await signIn(page, lang, email, fresh);
  }, 90_000);

  describe('a team', () => {
    let owner: TestMerchant;
    beforeAll(async () => {
      owner = await sys.merchant();
      await sys.shop(owner.id);
    });

    it('invites a member by mail who joins as a new user with the role given, sees only what the role may use, and is refused the rest', async () => {
      const page = await tab({ locale, ...size });
      await signInSteppedUp(page, lang, owner);
      expect(await menu(page)).toContain(t('navTeam'));
      await page.getByRole('link', { name: t('navTeam') }).click();
      await h1(page)
        .filter({ hasText: t('teamTitle') })
        .waitFor();
      await page.getByTestId('members-table').getByText(owner.email).waitFor();

      // The last owner cannot step down: the server's 409, in words, in the dialog.
      await page.getByRole('button', { name: `${t('changeRole')}: ${owner.email}` }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel(t('newRole')).selectOption('admin');
      await dialog.getByRole('button', { name: t('changeRoleYes') }).click();
      await alert(dialog, t('errors', 'account.err.last_owner')).waitFor();
      await check(page, 'accounts-last-owner-en');
      await dialog.getByRole('button', { name: t('cancel') }).click();

      // Invite one, then revoke: its link stops working.
      const revoked = newEmail();
      await page.getByLabel(t('email')).fill(revoked);
      await page.getByRole('button', { name: t('invite'), exact: true }).click();
      await page.getByTestId('invitations-table').getByText(revoked).waitFor();
      await page.getByRole('button', { name: `${t('revokeInvitation')}: ${revoked}` }).click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: t('revokeInvitationYes') })
        .click();
      await page.getByText(t('invitationsEmpty')).waitFor();
      const deadLink = await mailedLink(revoked, 'invitation');

      // Invite a viewer, who accepts from the mail as a new user.
      const email = newEmail();
      await page.getByLabel(t('email')).fill(email);
      await page.getByLabel(t('role'), { exact: true }).selectOption('viewer');
      await page.getByRole('button', { name: t('invite'), exact: true }).click();
      await page.getByText(t.with('invitationSent', email)).waitFor();
      await page.getByTestId('invitations-table').getByText(email).waitFor();
      // The guide to the roles, from the table the dashboard decides by: a viewer reads, and only reads.
      await page.getByText(t('roleGuideTitle')).click();
      const guide = page.getByTestId('role-guide').locator('div', { has: page.locator('dt', { hasText: t('roles', 'viewer') }) });
      expect(await guide.locator('dd').innerText()).toBe(`${t('roleAction', 'read')}; ${t('roleAction', 'read_money')}`);
      await check(page, 'accounts-team-en');
      const link = await mailedLink(email, 'invitation');
      expect(link).toMatch(/^\/dashboard\/invitation\?token=/);

      const joiner = await tab({ locale, ...size });
      await joiner.goto(sys.baseUrl + deadLink);
      await joiner.getByLabel(t('password'), { exact: true }).fill('a colleague passphrase');
      await joiner.getByRole('button', { name: t('acceptInvitation') }).click();
      await alert(joiner, t('errors', 'auth.err.invalid_token')).waitFor();
      await joiner.goto(sys.baseUrl + link);
      await joiner.getByText(t('invitationNoSession')).waitFor();
      await check(joiner, 'accounts-invitation-en');
      await joiner.getByLabel(t('password'), { exact: true }).fill('a colleague passphrase');
      await joiner.getByRole('button', { name: t('acceptInvitation') }).click();
      // A viewer reads money, so the account's Home opens, as it does at sign-in.
      await h1(joiner)
        .filter({ hasText: t('homeTitle') })
        .waitFor();

      // A viewer's menu and buttons: reading only.
      expect(await menu(joiner)).toEqual([
        t('navHome'),
        t('navLinks'),
        t('navBalance'),
        t('navPayouts'),
        t('navPayoutDestinations'),
        t('navUnresolved'),
        t('navEvents'),
        t('navShops'),
        t('navSecurity'),
        t('navAccount'),
      ]);
      expect(await joiner.getByRole('link', { name: t('newLink') }).count()).toBe(0);
      await joiner.getByRole('link', { name: t('navShops') }).click();
      await joiner.getByRole('link', { name: 'Test shop' }).click();
      await h1(joiner).filter({ hasText: 'Test shop' }).waitFor();
      await joiner.getByText(t('shopStatus', 'approved')).waitFor();
      expect(
        await joiner
          .getByRole('button')
          .filter({ hasText: new RegExp(`${t('rotateSecret')}|${t('reissueCashierKey')}|${t('save')}`) })
          .count(),
      ).toBe(0);
      await joiner.getByRole('link', { name: t('navAccount') }).click();
      await joiner
        .getByTestId('account-role')
        .filter({ hasText: t('roles', 'viewer') })
        .waitFor();
      expect(await joiner.getByText(t('auditTitle')).count()).toBe(0);
      await check(joiner, 'accounts-viewer-en');

      // Forced: the pages a viewer is not shown answer the server's refusal, in words.
      await joiner.goto(`${sys.baseUrl}/dashboard/api-keys`);
      await alert(joiner, t('errors', 'common.err.forbidden')).waitFor();
      await joiner.goto(`${sys.baseUrl}/dashboard/links/new`);
      await joiner.getByLabel(`${t('amount')}, ₽`).fill('100');
      await joiner.getByRole('button', { name: t('create'), exact: true }).click();
      await alert(joiner, t('errors', 'common.err.forbidden')).waitFor();
      await check(joiner, 'accounts-viewer-refused-en');

      // The owner sees the new member, and removes them: their session ends.
      await page.reload();
      await page.getByTestId('members-table').getByText(email).waitFor();
      await page.getByRole('button', { name: `${t('removeMember')}: ${email}` }).click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: t('removeMemberYes') })
        .click();
      await page.getByTestId('members-table').getByText(email).waitFor({ state: 'detached' });
      await joiner.goto(`${sys.baseUrl}/dashboard/links`);
      await h1(joiner)
        .filter({ hasText: t('signInTitle') })
        .waitFor();
    }, 90_000);

    it('lets a signed-in user of another account join as themselves and switch between the two accounts', async () => {
      const other = await sys.merchant();
      const page = await tab({ locale, ...size });
      await signInSteppedUp(page, lang, owner);
      await page.goto(`${sys.baseUrl}/dashboard/team`);
      await page.getByLabel(t('email')).fill(other.email);
      await page.getByLabel(t('role'), { exact: true }).selectOption('developer');
      await page.getByRole('button', { name: t('invite'), exact: true }).click();
      await page.getByText(t.with('invitationSent', other.email)).waitFor();
      const link = await mailedLink(other.email, 'invitation');

      const joiner = await tab({ locale, ...size });
      await signIn(joiner, lang, other.email, other.password);
      // One account: no switcher.
      expect(await joiner.getByTestId('account-switch').count()).toBe(0);
      await joiner.goto(sys.baseUrl + link);
      await joiner.getByText(t.with('invitationSignedIn', other.email)).waitFor();
      await joiner.getByRole('button', { name: t('acceptInvitation') }).click();
      // A developer reads no money: its landing page is the links.
      await h1(joiner)
        .filter({ hasText: t('linksTitle') })
        .waitFor();

      // Now in the owner's account as a developer: API keys yes, team and balance no.
      const switcher = joiner.getByTestId('account-switch');
      const select = switcher.getByLabel(t('accountSwitchLabel'));
      expect(await select.inputValue()).toBe(owner.id);
      expect(await menu(joiner)).toEqual([t('navLinks'), t('navEvents'), t('navShops'), t('navApiKeys'), t('navSecurity'), t('navAccount')]);
      await check(joiner, 'accounts-switcher-en');

      // Back to their own account, where they are the owner: its pages load for it.
      await select.selectOption(other.id);
      await switcher.getByRole('button', { name: t('switchAccount') }).click();
      await joiner
        .getByRole('navigation')
        .getByRole('link', { name: t('navTeam') })
        .waitFor();
      // The owner's landing page in the account switched to: Home.
      await h1(joiner)
        .filter({ hasText: t('homeTitle') })
        .waitFor();
      expect(await select.inputValue()).toBe(other.id);
      await joiner.getByRole('link', { name: t('navTeam') }).click();
      await joiner.getByTestId('members-table').getByText(other.email).waitFor();
      expect(await joiner.getByTestId('members-table').getByText(owner.email).count()).toBe(0);
    }, 60_000);
  });
});
