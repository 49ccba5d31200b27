import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { MailCatcher } from '@pl/mail-catcher';
import type { Browser, Page } from 'playwright-core';
import { startSystem, type TestSystem } from '../support/system';
import { expectAccessible, launchBrowser } from './browser';

/** The one axe check of every browser test (tests/e2e/browser.ts), here beside the dashboard's other checks. */
export { expectAccessible };

/** What the dashboard's browser tests share: its words per language, the sizes, the accessibility check, the screenshots. */

/** Screenshots people read in docs/dashboard.md. */
const DOCS = join(__dirname, '..', '..', 'docs', 'dashboard');
export const PHONE = { width: 360, height: 780 };
export const DESKTOP = { width: 1280, height: 900 };
export type Language = 'ru' | 'en';
type Entry = string | Readonly<Record<string, string>> | ((...values: (string | number)[]) => string);
/**
 * The dashboard's own message catalogue (services/gateway/dashboard/src/i18n/en.ts and ru.ts), so each flow finds what
 * a reader of its language sees. Loaded at run time: a static import would bring Preact's DOM typings into the Node typecheck.
 */
const { MESSAGES } = jest.requireActual<{ MESSAGES: Record<Language, Record<string, Entry>> }>('../../services/gateway/dashboard/src/i18n/messages');
interface Words {
  /** A text of the catalogue, or one of a map such as `field` or `linkStatus`; a key it lacks fails the test. */
  (key: string, sub?: string): string;
  /** A text made from values, such as `badInteger(0, 10080)`. */
  with(key: string, ...values: (string | number)[]): string;
}
export const words = (lang: Language): Words => {
  const entry = (key: string): Entry => {
    const found = MESSAGES[lang][key];
    if (found === undefined) throw new Error(`no "${key}" in the dashboard's ${lang} messages`);
    return found;
  };
  const text = (key: string, sub?: string): string => {
    const found = entry(key);
    const value = sub === undefined ? found : typeof found === 'object' ? found[sub] : undefined;
    if (typeof value !== 'string') throw new Error(`no text "${key}${sub === undefined ? '' : `.${sub}`}" in the dashboard's ${lang} messages`);
    return value;
  };
  return Object.assign(text, {
    with: (key: string, ...values: (string | number)[]): string => {
      const found = entry(key);
      if (typeof found !== 'function') throw new Error(`"${key}" in the dashboard's ${lang} messages takes no values`);
      return found(...values);
    },
  });
};
/**
 * The combinations each behaviour flow runs in: each language once and each width once, Russian on the phone (the
 * longer words on the narrower screen) and English at desktop width (the screenshots). A flow checks every state it
 * reaches at both widths (`checkBothWidths`), and the per-page tests go through every page in all four combinations:
 * docs/adr/0027-browser-tests-what-runs-in-which-combination.md.
 */
export const FLOW_COMBOS: { lang: Language; locale: string; size: typeof PHONE }[] = [
  { lang: 'ru', locale: 'ru-RU', size: PHONE },
  { lang: 'en', locale: 'en-US', size: DESKTOP },
];
/** Both widths, the one a page was opened at first. */
const widthsFrom = (size: typeof PHONE): (typeof PHONE)[] => (size === PHONE ? [PHONE, DESKTOP] : [DESKTOP, PHONE]);

/** A port known before the gateway starts, so PUBLIC_BASE_URL (the CSRF check's origin) is the page's origin. */
const freePort = async (): Promise<number> => {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
};

/** A system whose gateway serves the dashboard at `origin`, and the Chromium a test file drives it with. */
export interface DashboardSystem {
  sys: TestSystem;
  browser: Browser;
  origin: string;
}

/**
 * Starts the whole system and Chromium side by side for a dashboard test file. The gateway's public address
 * (PUBLIC_BASE_URL) is the pages' origin: the links in mail point at it and the CSRF check wants it; `localhost` where
 * WebAuthn needs a domain (it refuses an IP address). Sign-in's per-address limit is raised, as a file signs one address
 * in many times. When one of the two fails to start, the other is closed before the failure is thrown.
 */
export async function startDashboard(options: { host?: '127.0.0.1' | 'localhost'; env?: Record<string, string> } = {}): Promise<DashboardSystem> {
  const port = await freePort();
  const origin = `http://${options.host ?? '127.0.0.1'}:${port}`;
  const [sys, browser] = await Promise.allSettled([
    startSystem({ env: { GATEWAY_PORT: String(port), PUBLIC_BASE_URL: origin, RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE: '1000', ...options.env } }),
    launchBrowser(),
  ]);
  if (sys.status === 'fulfilled' && browser.status === 'fulfilled') return { sys: sys.value, browser: browser.value, origin };
  await stopDashboard({
    sys: sys.status === 'fulfilled' ? sys.value : undefined,
    browser: browser.status === 'fulfilled' ? browser.value : undefined,
  });
  throw sys.status === 'rejected' ? sys.reason : (browser as PromiseRejectedResult).reason;
}

/** Closes what startDashboard started; either may be missing when the file's start failed. */
export async function stopDashboard(started: { sys?: TestSystem; browser?: Browser }): Promise<void> {
  await started.browser?.close();
  await started.sys?.stop();
}

/**
 * The link to the dashboard's `page` in the n-th such mail to `email` (awaited as it arrives at the SMTP catcher), as a
 * path on the gateway at `baseUrl`. Other mails to the same address (a sign-in from a new address, say) do not count.
 */
export const mailedLink = async (mail: MailCatcher, baseUrl: string, email: string, page: string, n = 1): Promise<string> => {
  const link = new RegExp(`https?://\\S+/dashboard/${page}\\?token=[A-Za-z0-9_-]+`);
  const linking = (text: string): boolean => link.test(text);
  const found = await mail.waitFor(
    (m) =>
      m.envelopeTo.includes(email) &&
      linking(m.text) &&
      mail
        .mailsTo(email)
        .filter((x) => linking(x.text))
        .indexOf(m) ===
        n - 1,
  );
  const url = new URL(link.exec(found.text)![0]);
  expect(url.origin).toBe(baseUrl);
  return url.pathname + url.search;
};

/**
 * What scrolls sideways on the page as it is now: the page itself (`html`), or any box inside it (a table in its
 * region, a card) whose content is wider than it. Form fields are left out: a long value scrolls inside its field.
 */
const sidewaysScrollers = (page: Page): Promise<string[]> =>
  page.evaluate<string[]>(`(() => {
    const found = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) found.push('html');
    for (const el of document.body.querySelectorAll('*')) {
      if (el.matches('input, textarea, select')) continue;
      const overflow = getComputedStyle(el).overflowX;
      if ((overflow === 'auto' || overflow === 'scroll') && el.scrollWidth > el.clientWidth) {
        found.push(el.tagName.toLowerCase() + (el.getAttribute('aria-label') ? '[' + el.getAttribute('aria-label') + ']' : ''));
      }
    }
    return found;
  })()`);

/** The dates of the page that wrap over more than one line (each should read at a glance). */
const wrappedDates = (page: Page): Promise<string[]> =>
  page.evaluate<string[]>(
    `Array.from(document.querySelectorAll('main time')).filter((el) => el.getClientRects().length > 1).map((el) => el.textContent)`,
  );

/** Nothing scrolls sideways, neither the page nor a box inside it, and every date sits on one line. */
export const expectFits = async (page: Page): Promise<void> => {
  expect(await sidewaysScrollers(page)).toEqual([]);
  expect(await wrappedDates(page)).toEqual([]);
};

/** Checks a page at its current size and saves it for docs/dashboard.md. */
export const inspect = async (page: Page, name: string): Promise<void> => {
  await expectAccessible(page);
  await expectFits(page);
  mkdirSync(DOCS, { recursive: true });
  await page.screenshot({ path: join(DOCS, `${name}.png`), fullPage: true });
};

/**
 * Checks the page as it is now (axe, the fit) at its own width and at the other one, the window resized and then
 * back, so a state a flow reaches once is checked at 360 px and at desktop width in the flow's language. The
 * dashboard's layout is CSS alone (no script reads the width), so a resized page is laid out as one opened at that
 * width. The screenshot, when `screenshot` names one, is taken in English at desktop width (docs/dashboard.md).
 */
export const checkBothWidths = async (page: Page, lang: Language, size: typeof PHONE, screenshot?: string): Promise<void> => {
  for (const width of widthsFrom(size)) {
    if (width !== size) await page.setViewportSize(width);
    if (screenshot !== undefined && lang === 'en' && width === DESKTOP) {
      await inspect(page, screenshot);
    } else {
      await expectAccessible(page);
      await expectFits(page);
    }
  }
  await page.setViewportSize(size);
};

export const h1 = (page: Page) => page.locator('h1');

/**
 * A link's page as a merchant reads it: its facts in groups (the link, amounts, the buyer's payment, the provider,
 * dates), every label once, the checkout URL once (not again under its API aliases), the fee as a percentage.
 */
export const expectLinkAtAGlance = async (page: Page, lang: Language): Promise<void> => {
  const t = words(lang);
  const facts = page.getByTestId('link-fields');
  await facts.waitFor();
  const headings = await facts.getByRole('heading').allInnerTexts();
  expect(headings).toEqual(['linkGroupAbout', 'linkGroupAmounts', 'linkGroupPayment', 'linkGroupProvider', 'linkGroupTimes'].map((k) => t(k)));
  const labels = await facts.locator('dt').allInnerTexts();
  expect(new Set(labels).size).toBe(labels.length);
  const urls = await page.evaluate<number>(`(() => {
    const url = /https?:[/][/][^\\s]+[/]p[/][0-9a-f-]{36}/g;
    const inText = (document.querySelector('main').innerText.match(url) || []).length;
    const inFields = Array.from(document.querySelectorAll('main input')).filter((i) => url.test(i.value)).length;
    return inText + inFields;
  })()`);
  expect(urls).toBe(1);
  const fee = await facts
    .locator('div', { has: page.locator('dt', { hasText: new RegExp(`^${t('fee')}$`) }) })
    .locator('dd')
    .innerText();
  expect(fee).toMatch(/^\d+([.,]\d+)?\u00a0?% · /);
};

/** A list on a phone is a pile of cards (each value beside its column's name); on a wide screen, a table. */
export const expectListReadsAtWidth = async (page: Page, testId: string, width: number): Promise<void> => {
  const table = page.getByTestId(testId);
  const firstRow = table.locator('tbody tr').first();
  await firstRow.waitFor();
  const [rowDisplay, label] = await page.evaluate<[string, string]>(`(() => {
    const tr = document.querySelector('[data-testid="${testId}"] tbody tr');
    return [getComputedStyle(tr).display, getComputedStyle(tr.querySelector('td'), '::before').content];
  })()`);
  if (width <= PHONE.width) {
    expect(rowDisplay).toBe('block');
    expect(label).not.toBe('none');
    expect((await table.locator('thead').boundingBox())?.height ?? 0).toBeLessThanOrEqual(1);
  } else {
    expect(rowDisplay).toBe('table-row');
    expect(await table.locator('thead').isVisible()).toBe(true);
  }
};
