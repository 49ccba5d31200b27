import type { Browser, CDPSession, Page } from 'playwright-core';
import type { TestMerchant, TestSystem } from '../support/system';
import { foreignRequests, openTab, type BuyerTab } from './browser';
import { DESKTOP, expectAccessible, expectFits, h1, startDashboard, stopDashboard, words } from './dashboard-kit';

/**
 * Passkeys in the dashboard with a real browser's WebAuthn (docs/adr/0029-passkeys.md): Chromium's virtual
 * authenticator (DevTools Protocol `WebAuthn.*`) stands in for a phone or a security key, and the dashboard's own code
 * (@simplewebauthn/browser) registers a passkey with it, which the gateway verifies, and signs in with it. One
 * combination: English at desktop width (the Security page's other states are the page tests'; a passkey beside TOTP,
 * in Russian at 360 px, is the journey's, dashboard-journey.test.ts).
 *
 * WebAuthn needs a domain for its relying party (an IP address is refused), so this system's public address, and the
 * page's, is `localhost`.
 */

let sys: TestSystem;
let browser: Browser;
let origin: string;
const tabs: BuyerTab[] = [];
const t = words('en');
const pk = (key: string): string => t('passkeys', key);

beforeAll(async () => {
  ({ sys, browser, origin } = await startDashboard({ host: 'localhost' }));
}, 60_000);
afterAll(() => stopDashboard({ sys, browser }));
afterEach(async () => {
  for (const tab of tabs.splice(0)) {
    expect(foreignRequests(tab, origin)).toEqual([]);
    expect(tab.errors.filter((e) => /Content Security Policy|Refused to|Uncaught/i.test(e))).toEqual([]);
    await tab.close();
  }
});

/** A tab with a virtual platform authenticator that verifies its user (a phone's fingerprint, say) and says yes by itself. */
async function tabWithAuthenticator(): Promise<{ page: Page; cdp: CDPSession; authenticatorId: string }> {
  const tab = await openTab(browser, { locale: 'en-US', ...DESKTOP });
  tabs.push(tab);
  const cdp = await tab.context.newCDPSession(tab.page);
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
  return { page: tab.page, cdp, authenticatorId };
}

const title = (page: Page, text: string) => h1(page).filter({ hasText: text }).waitFor();

/** The password step of sign-in; the caller waits for what comes next. */
async function enterPassword(page: Page, m: TestMerchant): Promise<void> {
  await page.goto(`${origin}/dashboard/login`);
  await page.getByLabel(t('email')).fill(m.email);
  await page.getByLabel(t('password')).fill(m.password);
  await page.getByRole('button', { name: t('signIn'), exact: true }).click();
}

async function signIn(page: Page, m: TestMerchant): Promise<void> {
  await enterPassword(page, m);
  await title(page, t('homeTitle'));
}

async function openSecurity(page: Page): Promise<void> {
  await page.goto(`${origin}/dashboard/security`);
  await h1(page)
    .filter({ hasText: t('security', 'title') })
    .waitFor();
  await page.getByTestId('passkeys').locator('.loading').waitFor({ state: 'detached' });
}

const passkeyNames = (page: Page): Promise<string[]> => page.getByTestId('passkeys-table').locator('tbody tr td:first-child').allInnerTexts();

describe('passkeys on the Security page, en at desktop width', () => {
  it('adds a passkey through the browser, signs in with it as the only second factor, does not add it twice on one device, renames it and removes it, each change mailed', async () => {
    const m = await sys.merchant();
    const { page, cdp, authenticatorId } = await tabWithAuthenticator();
    await signIn(page, m);
    await openSecurity(page);
    const section = page.getByTestId('passkeys');
    await section.getByText(pk('empty')).waitFor();

    await section.getByLabel(pk('name'), { exact: true }).fill('Work laptop');
    await section.getByRole('button', { name: pk('add'), exact: true }).click();
    await section.getByText(pk('added')).waitFor();
    expect(await passkeyNames(page)).toEqual(['Work laptop']);
    // The browser's authenticator holds the one credential the gateway stored.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ rpId: 'localhost', isResidentCredential: true });
    const stored = await sys.http.get('/api/v1/me/2fa/passkeys', { headers: { Cookie: await sidCookie(page) } });
    expect(stored.body.passkeys).toEqual([expect.objectContaining({ name: 'Work laptop', last_used_at: null })]);
    expect((await sys.mail.waitForMailTo(m.email)).subject).toMatch(/второй фактор|second factor/);
    await expectAccessible(page);
    await expectFits(page);

    // Signed out, and in again: the password, then the passkey. With no TOTP the second step offers the passkey (and
    // recovery codes), not an app's code. (With TOTP too, sign-in by passkey is the journey's: dashboard-journey.test.ts.)
    await page
      .getByRole('navigation')
      .getByRole('link', { name: t('navAccount') })
      .click();
    await page.getByRole('button', { name: t('signOut'), exact: true }).click();
    await title(page, t('signInTitle'));
    await enterPassword(page, m);
    await title(page, t('secondStep', 'title'));
    expect(await page.getByLabel(t('secondStep', 'code'), { exact: true }).count()).toBe(0);
    await expectAccessible(page);
    await expectFits(page);
    await page.getByRole('button', { name: t('secondStep', 'usePasskey'), exact: true }).click();
    await title(page, t('homeTitle'));
    await openSecurity(page);

    // The options exclude the user's passkeys: the same device declines to make a second one, and the page says why.
    await section.getByLabel(pk('name'), { exact: true }).fill('Same laptop');
    await section.getByRole('button', { name: pk('add'), exact: true }).click();
    await section.getByText(pk('alreadyOnDevice')).waitFor();
    expect(await passkeyNames(page)).toEqual(['Work laptop']);
    expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials).toHaveLength(1);

    await section.getByRole('button', { name: `${pk('rename')}: Work laptop` }).click();
    const renameDialog = page.getByRole('dialog');
    await renameDialog.getByLabel(pk('name'), { exact: true }).fill('Old laptop');
    await renameDialog.getByRole('button', { name: t('save'), exact: true }).click();
    await renameDialog.waitFor({ state: 'detached' });
    await section.getByRole('cell', { name: 'Old laptop', exact: true }).waitFor();

    await section.getByRole('button', { name: `${pk('remove')}: Old laptop` }).click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: pk('removeYes'), exact: true })
      .click();
    await section.getByText(pk('empty')).waitFor();
    expect((await sys.mail.waitForMailTo(m.email, 2)).subject).toMatch(/второй фактор|second factor/);
  });
});

/** The page's session cookie, to read the gateway's view of what the page did. */
async function sidCookie(page: Page): Promise<string> {
  const sid = (await page.context().cookies(origin)).find((c) => c.name === 'sid');
  if (!sid) throw new Error('no session cookie');
  return `sid=${sid.value}`;
}
