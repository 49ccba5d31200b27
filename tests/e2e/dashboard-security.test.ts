import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { createClient } from 'redis';
import { authenticatorApp as authenticatorAppOf, enrolledFactors, totpCode } from '../support/second-factor';
import type { TestMerchant, TestSystem } from '../support/system';
import { foreignRequests, openTab, type BuyerTab } from './browser';
import { checkBothWidths, FLOW_COMBOS, h1, type Language, PHONE, startDashboard, stopDashboard, words } from './dashboard-kit';

/**
 * Second factors in the dashboard, in Chromium (docs/dashboard.md, docs/adr/0028 and 0029): the Security page turns
 * TOTP on (the code computed here from the secret the page shows, as an app would), sign-in's second step takes a
 * code and a recovery code (once), a stale session is asked for its second factor once and the action goes on, and
 * sessions are listed and ended. A passkey's sign-in is dashboard-passkeys.test.ts's (as the only factor) and
 * dashboard-journey.test.ts's (beside TOTP). Time is moved by rewriting what the gateway stored (the session's
 * second-factor time), never by sleeping. The system's public address, and the page's, is `localhost`, as where
 * passkeys are used (WebAuthn needs a domain for its relying party).
 */
let sys: TestSystem;
let browser: Browser;
let origin: string;
let redis: ReturnType<typeof createClient>;
const tabs: BuyerTab[] = [];

beforeAll(async () => {
  ({ sys, browser, origin } = await startDashboard({ host: 'localhost' }));
  redis = createClient({ url: sys.env.REDIS_URL });
  await redis.connect();
}, 60_000);
afterAll(async () => {
  await redis?.close();
  await stopDashboard({ sys, browser });
});
afterEach(async () => {
  for (const t of tabs.splice(0)) {
    expect(foreignRequests(t, origin)).toEqual([]);
    expect(t.errors.filter((e) => /Content Security Policy|Refused to|Uncaught/i.test(e))).toEqual([]);
    await t.close();
  }
});

const tab = async (options: { locale: string; width: number; height: number }): Promise<BuyerTab> => {
  const t = await openTab(browser, options);
  tabs.push(t);
  return t;
};

/** The authenticator app of a user's TOTP secret (tests/support/second-factor.ts), moving the gateway's record, not time. */
const authenticatorApp = (secret: string, email: string) => authenticatorAppOf((text, params) => sys.sql(text, params), secret, email);

async function sidOf(page: Page): Promise<string> {
  const sid = (await page.context().cookies(origin)).find((c) => c.name === 'sid');
  if (!sid) throw new Error('no session cookie');
  return sid.value;
}

/** Makes the page's session as if its second factor was verified 11 minutes ago: step-up is due again. */
async function staleStepUp(page: Page): Promise<void> {
  const key = `${sys.env.REDIS_KEY_PREFIX ?? ''}session:${createHash('sha256')
    .update(await sidOf(page), 'utf8')
    .digest('hex')}`;
  const stored = JSON.parse((await redis.get(key)) ?? 'null') as Record<string, unknown> | null;
  if (!stored) throw new Error('the page has no stored session');
  await redis.set(key, JSON.stringify({ ...stored, second_factor_at: Date.now() - 11 * 60 * 1000 }), { KEEPTTL: true });
}

/** The password step; the caller answers the second step, if any. */
async function enterPassword(page: Page, lang: Language, m: TestMerchant): Promise<void> {
  const t = words(lang);
  await page.goto(`${origin}/dashboard/login`);
  await page.getByLabel(t('email')).fill(m.email);
  await page.getByLabel(t('password'), { exact: true }).fill(m.password);
  await page.getByRole('button', { name: t('signIn'), exact: true }).click();
}

const waitForTitle = (page: Page, title: string) => h1(page).filter({ hasText: title }).waitFor();

async function signOut(page: Page, lang: Language): Promise<void> {
  const t = words(lang);
  await page.goto(`${origin}/dashboard/account`);
  await page.getByRole('button', { name: t('signOut'), exact: true }).click();
  await waitForTitle(page, t('signInTitle'));
}

/** A session of the user opened elsewhere (another browser), by the API. */
const otherSession = async (m: TestMerchant, userAgent: string): Promise<void> => {
  const res = await sys.http.post('/api/v1/auth/login', { email: m.email, password: m.password }, { headers: { 'User-Agent': userAgent } });
  expect(res.status).toBe(200);
  expect(res.body.session_token).toEqual(expect.any(String));
};

describe.each(FLOW_COMBOS)('the Security page and second factors in $lang at $size.width px', ({ lang, locale, size }) => {
  const t = words(lang);
  const s = (key: string): string => t('security', key);
  const second = (key: string): string => t('secondStep', key);
  const check = (page: Page, name?: string): Promise<void> => checkBothWidths(page, lang, size, name);

  // Several sign-ins, each landing on Home (its figures and charts load first): past Jest's default 30 s on a busy machine.
  it('turns TOTP on, keeps the recovery codes, steps up once for an API key, ends other sessions, and signs in with a code and a recovery code', async () => {
    const m = await sys.merchant();
    await otherSession(m, 'Phone browser (kept until ended)');
    await otherSession(m, 'Tablet browser');
    const { page } = await tab({ locale, ...size });
    await enterPassword(page, lang, m);
    await waitForTitle(page, t('homeTitle'));

    // Without a second factor, an action that needs step-up is refused in words that point to the Security page.
    await page.goto(`${origin}/dashboard/api-keys`);
    await waitForTitle(page, t('apiKeysTitle'));
    await page
      .getByRole('form', { name: t('newApiKey') })
      .getByRole('button', { name: t('create'), exact: true })
      .click();
    await page
      .getByRole('alert')
      .filter({ hasText: t('errors', 'auth.err.two_factor_required') })
      .waitFor();
    expect(await page.getByTestId('step-up').count()).toBe(0);

    // Security is in every role's menu.
    await page
      .getByRole('navigation')
      .getByRole('link', { name: t('navSecurity') })
      .click();
    await waitForTitle(page, s('title'));
    await page.getByText(s('noFactor')).waitFor();

    // Sessions: this one marked, two others; one ended, then all others.
    const sessions = page.getByTestId('sessions-table');
    await sessions.getByText('Tablet browser').waitFor();
    expect(await sessions.getByText(s('thisSession')).count()).toBe(1);
    await check(page, 'security-sessions-en');
    await sessions.getByRole('button', { name: new RegExp(`${s('endSession')}: .*Tablet browser`) }).click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: s('endSession'), exact: true })
      .click();
    await sessions.getByText('Tablet browser').waitFor({ state: 'detached' });
    await sessions.getByText('Phone browser (kept until ended)').waitFor();
    expect(await sessions.getByText('Tablet browser').count()).toBe(0);
    await page.getByRole('button', { name: s('endOthers'), exact: true }).click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: s('endOthers'), exact: true })
      .click();
    await sessions.getByText('Phone browser (kept until ended)').waitFor({ state: 'detached' });
    // The list read anew (it is gone while it loads): this session alone.
    await sessions.getByText(s('thisSession')).waitFor();
    expect(await sessions.getByText('Phone browser (kept until ended)').count()).toBe(0);
    expect(await sessions.getByRole('button', { name: new RegExp(s('endSession')) }).count()).toBe(0);

    // TOTP: the QR the server drew and the secret to type; a wrong code refused beside the field, then on.
    const section = page.getByTestId('two-factor');
    await section.getByRole('button', { name: s('totpTurnOn'), exact: true }).click();
    await section.getByTestId('totp-qr').waitFor();
    const secret = await page.locator('#totp-secret').inputValue();
    expect(secret).toMatch(/^[A-Z2-7]+=*$/);
    await check(page, 'security-totp-enroll-en');
    const app = authenticatorApp(secret, m.email);
    const wrong = totpCode(secret) === '000000' ? '111111' : '000000';
    await section.getByLabel(second('code'), { exact: true }).fill(wrong);
    await section.getByRole('button', { name: s('totpConfirm'), exact: true }).click();
    await page
      .locator('#totp-code-error')
      .filter({ hasText: second('wrongCode') })
      .waitFor();
    await section.getByLabel(second('code'), { exact: true }).fill(await app());
    await section.getByRole('button', { name: s('totpConfirm'), exact: true }).click();

    // The recovery codes, once: ten of them, the download is the same ten as text.
    const shown = page.getByTestId('recovery-codes');
    await shown.waitFor();
    const codes = (await shown.locator('li').allInnerTexts()).map((c) => c.trim());
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    const downloading = page.waitForEvent('download');
    await shown.getByRole('button', { name: s('recoveryDownload'), exact: true }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('recovery-codes.txt');
    expect((await readFile(await download.path(), 'utf8')).trim().split('\n')).toEqual(codes);
    await check(page, 'security-recovery-codes-en');
    await shown.getByRole('button', { name: s('recoverySaved'), exact: true }).click();
    await page
      .getByTestId('totp-state')
      .filter({ hasText: s('totpOn') })
      .waitFor();
    await page.getByTestId('recovery-left').filter({ hasText: '10' }).waitFor();

    // Eleven minutes later, as far as the server knows: a new API key asks for the second factor, then is made.
    await staleStepUp(page);
    await page.goto(`${origin}/dashboard/api-keys`);
    await waitForTitle(page, t('apiKeysTitle'));
    await page
      .getByRole('form', { name: t('newApiKey') })
      .getByRole('button', { name: t('create'), exact: true })
      .click();
    const stepUp = page.getByTestId('step-up');
    await stepUp.waitFor();
    await check(page, 'security-step-up-en');
    await stepUp.getByLabel(t('stepUp', 'code'), { exact: true }).fill(await app());
    await stepUp.getByRole('button', { name: t('stepUp', 'verify'), exact: true }).click();
    await page.getByTestId('secret-reveal').waitFor();
    expect(await stepUp.count()).toBe(0);
    const keys = await sys.http.get('/api/v1/api-keys', { headers: { Cookie: `sid=${await sidOf(page)}` } });
    expect(keys.body.api_keys.length).toBeGreaterThanOrEqual(2);

    // Sign-in now asks for a code after the password. Five minutes later, as far as the server knows (the challenge's
    // key gone from Redis), the step sends the user back to the password, saying why.
    await signOut(page, lang);
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/v1/auth/login'));
    await enterPassword(page, lang, m);
    const { challenge } = (await (await answered).json()) as { challenge: string };
    await waitForTitle(page, second('title'));
    await check(page, 'sign-in-second-step-en');
    await redis.del(`${sys.env.REDIS_KEY_PREFIX ?? ''}2fa:challenge:${createHash('sha256').update(challenge, 'utf8').digest('hex')}`);
    await page.getByLabel(second('code'), { exact: true }).fill('123456');
    await page.getByRole('button', { name: t('signIn'), exact: true }).click();
    await page.getByText(second('expired')).waitFor();
    await waitForTitle(page, t('signInTitle'));
    await page.getByLabel(t('password'), { exact: true }).fill(m.password);
    await page.getByRole('button', { name: t('signIn'), exact: true }).click();
    await waitForTitle(page, second('title'));
    await page.getByLabel(second('code'), { exact: true }).fill(await app());
    await page.getByRole('button', { name: t('signIn'), exact: true }).click();
    await waitForTitle(page, t('homeTitle'));

    // A recovery code signs in once; the same one again is refused beside the field.
    for (const round of [1, 2]) {
      await signOut(page, lang);
      await enterPassword(page, lang, m);
      await waitForTitle(page, second('title'));
      await page.getByRole('button', { name: second('useRecoveryCode'), exact: true }).click();
      await page.getByLabel(second('recoveryCode'), { exact: true }).fill(codes[0]!);
      await page.getByRole('button', { name: t('signIn'), exact: true }).click();
      if (round === 1) await waitForTitle(page, t('homeTitle'));
    }
    await page
      .locator('#second-factor-code-error')
      .filter({ hasText: second('wrongRecoveryCode') })
      .waitFor();
    await check(page);
  }, 90_000);

  it('sends a member of an account that requires a second factor, and has none, to the Security page', async () => {
    const m = await sys.merchant();
    // The owner turned the policy on (the route is tested with the gateway's); this member has no factor yet.
    await sys.sql('UPDATE gateway.merchants SET require_two_factor = true WHERE id = $1', [m.id]);
    const { page } = await tab({ locale, ...size });
    await enterPassword(page, lang, m);
    await waitForTitle(page, s('title'));
    await page.getByText(s('noFactor')).waitFor();
    await check(page);
    // Enrolled, the member may use the rest of the dashboard.
    const section = page.getByTestId('two-factor');
    await section.getByRole('button', { name: s('totpTurnOn'), exact: true }).click();
    await section.getByTestId('totp-qr').waitFor();
    const app = authenticatorApp(await page.locator('#totp-secret').inputValue(), m.email);
    await section.getByLabel(second('code'), { exact: true }).fill(await app());
    await section.getByRole('button', { name: s('totpConfirm'), exact: true }).click();
    await page
      .getByTestId('recovery-codes')
      .getByRole('button', { name: s('recoverySaved'), exact: true })
      .click();
    await page
      .getByRole('navigation')
      .getByRole('link', { name: t('navLinks') })
      .click();
    await waitForTitle(page, t('linksTitle'));
  });
});

describe('the step-up dialog cancelled, ru at 360 px', () => {
  const t = words('ru');

  it('leaves the action undone and the page usable, by its button and by Escape, and then does it once verified', async () => {
    const m = await sys.merchant();
    // A stepped-up session of a user with TOTP (tests/support/second-factor.ts), handed to the page as its cookie.
    const token = await sys.login(m);
    const { secret } = enrolledFactors(m.email)!;
    const { page } = await tab({ locale: 'ru-RU', ...PHONE });
    await page.context().addCookies([{ name: 'sid', value: token, url: origin, httpOnly: true, sameSite: 'Strict' }]);
    const keyCount = async (): Promise<number> =>
      ((await sys.http.get('/api/v1/api-keys', { headers: { Cookie: `sid=${token}` } })).body.api_keys as unknown[]).length;
    const before = await keyCount();

    await staleStepUp(page);
    await page.goto(`${origin}/dashboard/api-keys`);
    await waitForTitle(page, t('apiKeysTitle'));
    const form = page.getByRole('form', { name: t('newApiKey') });
    const create = form.getByRole('button', { name: t('create'), exact: true });
    const stepUp = page.getByTestId('step-up');
    for (const cancel of ['button', 'Escape'] as const) {
      await create.click();
      await stepUp.waitFor();
      await checkBothWidths(page, 'ru', PHONE);
      if (cancel === 'button') await stepUp.getByRole('button', { name: t('cancel'), exact: true }).click();
      else await page.keyboard.press('Escape');
      await stepUp.waitFor({ state: 'detached' });
      // The refusal is handed back to the form, in words; no key was made and no secret is shown.
      await form
        .getByRole('alert')
        .filter({ hasText: t('errors', 'auth.err.step_up_required') })
        .waitFor();
      expect(await page.getByTestId('secret-reveal').count()).toBe(0);
      expect(await keyCount()).toBe(before);
      expect(await create.isEnabled()).toBe(true);
      await checkBothWidths(page, 'ru', PHONE);
    }

    // Still usable: the same button asks again, and a code makes the key once. The enrolment took this step's code,
    // so the record of the last step used goes back a minute (as authenticatorApp does).
    await sys.sql(
      'UPDATE gateway.user_totp SET last_used_step = last_used_step - 2 WHERE user_id = (SELECT id FROM gateway.users WHERE lower(email) = lower($1))',
      [m.email],
    );
    await create.click();
    await stepUp.waitFor();
    await stepUp.getByLabel(t('stepUp', 'code'), { exact: true }).fill(totpCode(secret));
    await stepUp.getByRole('button', { name: t('stepUp', 'verify'), exact: true }).click();
    await page.getByTestId('secret-reveal').waitFor();
    expect(await stepUp.count()).toBe(0);
    expect(await keyCount()).toBe(before + 1);
    await checkBothWidths(page, 'ru', PHONE);
  });
});
