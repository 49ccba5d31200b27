import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { authenticatorApp } from '../support/second-factor';
import type { TestSystem } from '../support/system';
import { checkedTabs } from './browser';
import { checkBothWidths, DESKTOP, h1, type Language, mailedLink, PHONE, startDashboard, stopDashboard, words } from './dashboard-kit';

/**
 * The accounts issue's journey, as one new merchant walks it in Chromium, in order and in one browser context: sign up
 * on the dashboard's page, open the confirmation link of the mail the SMTP catcher received, sign in, turn TOTP on
 * (codes computed from the secret the page shows, as an app would), sign out, sign in with password and code, add a
 * passkey through Chromium's virtual authenticator (DevTools Protocol `WebAuthn.*`), sign out and sign in with the
 * passkey as the second step, invite a viewer from the Team page; the viewer opens the mailed invitation in a second,
 * fresh context, joins as a new user, is not offered the money and team actions, and is refused one forced anyway.
 *
 * Languages and widths: the owner walks in Russian at 360 px, the invited viewer in English at desktop width, and every
 * state either reaches is checked (axe, nothing scrolls sideways) at both widths (checkBothWidths, ADR 0027). One run
 * so covers both languages and both widths, in about 12 s; the whole journey once per combination would double that
 * (about 30 s for the file) for a second pass over states the flows' own files already check in the other language
 * (dashboard-accounts and dashboard-security run each flow in both). Every tab is checked after the test: it talked
 * to nobody but the gateway, broke no CSP rule and threw nothing (checkedTabs). No screenshots: those files take them.
 *
 * WebAuthn needs a domain for its relying party (an IP address is refused), so the system's public address, and the
 * pages', is `localhost`. TOTP's next code is had by moving the gateway's record of the last step used, never by waiting.
 */
let sys: TestSystem;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  ({ sys, browser, origin } = await startDashboard({ host: 'localhost' }));
}, 60_000);
afterAll(() => stopDashboard({ sys, browser }));
const openCheckedTab = checkedTabs(
  () => browser,
  () => origin,
);

const waitForTitle = (page: Page, title: string) => h1(page).filter({ hasText: title }).waitFor();

/** The password step of sign-in; the caller answers what comes next. */
async function enterPassword(page: Page, lang: Language, email: string, password: string): Promise<void> {
  const t = words(lang);
  await page.goto(`${origin}/dashboard/login`);
  await page.getByLabel(t('email')).fill(email);
  await page.getByLabel(t('password'), { exact: true }).fill(password);
  await page.getByRole('button', { name: t('signIn'), exact: true }).click();
}

async function signOut(page: Page, lang: Language): Promise<void> {
  const t = words(lang);
  await page
    .getByRole('navigation')
    .getByRole('link', { name: t('navAccount') })
    .click();
  await waitForTitle(page, t('accountTitle'));
  await page.getByRole('button', { name: t('signOut'), exact: true }).click();
  await waitForTitle(page, t('signInTitle'));
}

/** The names of the main menu's entries, as the signed-in user sees them. */
const menu = (page: Page): Promise<string[]> => page.getByRole('navigation').getByRole('link').allInnerTexts();

describe('the accounts journey: the owner in ru at 360 px, the invited viewer in en at desktop width', () => {
  it('signs up, confirms by mail, turns TOTP on, signs in with a code, adds a passkey and signs in with it, and invites a viewer who joins and is held to the role', async () => {
    const ru = words('ru');
    const en = words('en');
    const email = `journey-${randomBytes(6).toString('hex')}@example.com`;
    const password = 'a journey passphrase';
    const { page, context } = await openCheckedTab({ locale: 'ru-RU', ...PHONE });
    // Each state checked at 360 px and at desktop width, in the walker's language.
    const owner = (): Promise<void> => checkBothWidths(page, 'ru', PHONE);

    // Sign up on the dashboard's page, reached from sign-in.
    await page.goto(`${origin}/dashboard/login`);
    await waitForTitle(page, ru('signInTitle'));
    await owner();
    await page.getByRole('link', { name: ru('signUpLink') }).click();
    await waitForTitle(page, ru('signUpTitle'));
    await page.getByLabel(ru('email')).fill(email);
    await page.getByLabel(ru('password'), { exact: true }).fill(password);
    await page.getByLabel(ru('accountName')).fill('Чайная на углу');
    await owner();
    await page.getByRole('button', { name: ru('signUp'), exact: true }).click();
    await page.getByText(ru.with('signUpSent', email)).waitFor();
    await owner();

    // The confirmation mail as the catcher received it over SMTP, in the page's language; its link opened.
    expect((await sys.mail.waitForMailTo(email)).language).toBe('ru');
    await page.goto(origin + (await mailedLink(sys.mail, origin, email, 'confirm-email')));
    await page.getByText(ru('emailConfirmedNow')).waitFor();
    await owner();

    // Sign in: no second factor yet, so straight to Home.
    await enterPassword(page, 'ru', email, password);
    await waitForTitle(page, ru('homeTitle'));
    expect(await page.getByTestId('email-banner').count()).toBe(0);
    await owner();

    // TOTP on, on the Security page: the secret the page shows is what the app computes codes from.
    const s = (key: string): string => ru('security', key);
    const second = (key: string): string => ru('secondStep', key);
    await page
      .getByRole('navigation')
      .getByRole('link', { name: ru('navSecurity') })
      .click();
    await waitForTitle(page, s('title'));
    await page.getByText(s('noFactor')).waitFor();
    await owner();
    const twoFactor = page.getByTestId('two-factor');
    await twoFactor.getByRole('button', { name: s('totpTurnOn'), exact: true }).click();
    await twoFactor.getByTestId('totp-qr').waitFor();
    const app = authenticatorApp((text, params) => sys.sql(text, params), await page.locator('#totp-secret').inputValue(), email);
    await owner();
    await twoFactor.getByLabel(second('code'), { exact: true }).fill(await app());
    await twoFactor.getByRole('button', { name: s('totpConfirm'), exact: true }).click();
    const recovery = page.getByTestId('recovery-codes');
    await recovery.waitFor();
    await owner();
    await recovery.getByRole('button', { name: s('recoverySaved'), exact: true }).click();
    await page
      .getByTestId('totp-state')
      .filter({ hasText: s('totpOn') })
      .waitFor();
    await owner();

    // Signed out, and in again: the password, then the app's code.
    await signOut(page, 'ru');
    await owner();
    await enterPassword(page, 'ru', email, password);
    await waitForTitle(page, second('title'));
    await owner();
    await page.getByLabel(second('code'), { exact: true }).fill(await app());
    await page.getByRole('button', { name: ru('signIn'), exact: true }).click();
    await waitForTitle(page, ru('homeTitle'));

    // A passkey, made by the browser's own WebAuthn against a virtual platform authenticator that verifies its user.
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    await page
      .getByRole('navigation')
      .getByRole('link', { name: ru('navSecurity') })
      .click();
    await waitForTitle(page, s('title'));
    const passkeys = page.getByTestId('passkeys');
    await passkeys.getByLabel(ru('passkeys', 'name'), { exact: true }).fill('Телефон');
    await passkeys.getByRole('button', { name: ru('passkeys', 'add'), exact: true }).click();
    await passkeys.getByText(ru('passkeys', 'added')).waitFor();
    await page.getByTestId('passkeys-table').getByText('Телефон', { exact: true }).waitFor();
    expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials).toEqual([
      expect.objectContaining({ rpId: 'localhost', isResidentCredential: true }),
    ]);
    await owner();

    // Signed out, and in with the password and then the passkey, offered beside the app's code.
    await signOut(page, 'ru');
    await enterPassword(page, 'ru', email, password);
    await waitForTitle(page, second('title'));
    await page.getByRole('button', { name: second('usePasskey'), exact: true }).click();
    await waitForTitle(page, ru('homeTitle'));

    // The Team page (the passkey just verified is the step-up inviting needs): a viewer invited by mail.
    const member = `viewer-${randomBytes(6).toString('hex')}@example.com`;
    await page
      .getByRole('navigation')
      .getByRole('link', { name: ru('navTeam') })
      .click();
    await waitForTitle(page, ru('teamTitle'));
    await page.getByTestId('members-table').getByText(email).waitFor();
    await page.getByLabel(ru('email')).fill(member);
    await page.getByLabel(ru('role'), { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: ru('invite'), exact: true }).click();
    await page.getByText(ru.with('invitationSent', member)).waitFor();
    await page.getByTestId('invitations-table').getByText(member).waitFor();
    await owner();

    // The viewer, in another browser (a fresh context, English, desktop), opens the mailed link and joins as a new user.
    const viewer = (await openCheckedTab({ locale: 'en-US', ...DESKTOP })).page;
    const seen = (): Promise<void> => checkBothWidths(viewer, 'en', DESKTOP);
    await viewer.goto(origin + (await mailedLink(sys.mail, origin, member, 'invitation')));
    await viewer.getByText(en('invitationNoSession')).waitFor();
    await seen();
    await viewer.getByLabel(en('password'), { exact: true }).fill('a colleague passphrase');
    await viewer.getByRole('button', { name: en('acceptInvitation') }).click();
    // A viewer reads money: the account's Home opens.
    await waitForTitle(viewer, en('homeTitle'));
    await seen();

    // What a viewer is offered: the money pages to read, no Team and no API keys in the menu, no new payout.
    const entries = await menu(viewer);
    expect(entries).toEqual(expect.arrayContaining([en('navBalance'), en('navPayouts'), en('navSecurity'), en('navAccount')]));
    expect(entries).not.toContain(en('navTeam'));
    expect(entries).not.toContain(en('navApiKeys'));
    await viewer
      .getByRole('navigation')
      .getByRole('link', { name: en('navPayouts') })
      .click();
    await waitForTitle(viewer, en('payoutsTitle'));
    await viewer.getByText(en('payoutsReadOnly')).waitFor();
    expect(await viewer.getByRole('heading', { name: en('payoutNew') }).count()).toBe(0);
    await seen();
    await viewer
      .getByRole('navigation')
      .getByRole('link', { name: en('navAccount') })
      .click();
    await viewer
      .getByTestId('account-role')
      .filter({ hasText: en('roles', 'viewer') })
      .waitFor();
    await seen();

    // Forced: the page's own session (its cookie, its origin) asks the server for a team change and for a payout, and
    // is refused both; the Team page opened by its address too.
    const force = (path: string, body: object): Promise<{ status: number; code: unknown }> =>
      viewer.evaluate(
        ([p, b]) =>
          fetch(p, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'Idempotency-Key': crypto.randomUUID() },
            body: JSON.stringify(b),
          }).then(async (r) => ({ status: r.status, code: ((await r.json()) as { error?: { code?: unknown } }).error?.code })),
        [path, body] as const,
      );
    expect(await force('/api/v1/invitations', { email: 'someone-else@example.com', role: 'admin' })).toEqual({
      status: 403,
      code: 'common.err.forbidden',
    });
    expect(await force('/api/v1/payouts', { shop_id: 1, destination_id: '00000000-0000-4000-8000-000000000000', amount: '100.00' })).toEqual({
      status: 403,
      code: 'common.err.forbidden',
    });
    await viewer.goto(`${origin}/dashboard/team`);
    // Both of its lists (members, invitations) answer the refusal in words; no form to invite with.
    await viewer
      .getByRole('region', { name: en('membersTitle') })
      .getByRole('alert')
      .filter({ hasText: en('errors', 'common.err.forbidden') })
      .waitFor();
    expect(
      await viewer
        .getByRole('alert')
        .filter({ hasText: en('errors', 'common.err.forbidden') })
        .count(),
    ).toBe(2);
    expect(await viewer.getByRole('button', { name: en('invite'), exact: true }).count()).toBe(0);
    await seen();

    // The owner's team: the viewer a member, and no invitation made by the forced call.
    await page.reload();
    await page.getByTestId('members-table').getByText(member).waitFor();
    expect(await page.getByTestId('invitations-table').getByText('someone-else@example.com').count()).toBe(0);
    await owner();
  }, 60_000);
});
