import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium (installed by `.ci/run`); no browser downloads. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = join(__dirname, '..', '..', 'test-results', 'checkout');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface BuyerTab {
  context: BrowserContext;
  page: Page;
  /** Every URL the page asked for (documents, scripts, styles, fetches, images...). */
  requests: string[];
  /** Console errors, CSP violations among them. */
  errors: string[];
  close(): Promise<void>;
}

export interface TabOptions {
  /** Sets Accept-Language (and navigator.language), like a buyer's browser. */
  locale?: string;
  width?: number;
  height?: number;
}

/** A fresh browser profile (no cookies) that records what the page requests and what goes wrong. */
export async function openTab(browser: Browser, options: TabOptions = {}): Promise<BuyerTab> {
  const context = await browser.newContext({
    locale: options.locale ?? 'ru-RU',
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    deviceScaleFactor: 1,
  });
  const page = await context.newPage();
  // Fail a step in seconds rather than at Jest's limit, so the message names the step.
  page.setDefaultTimeout(10_000);
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return { context, page, requests, errors, close: () => context.close() };
}

/**
 * Opens tabs for a test file and checks each after every test: it talked to nobody but the gateway, broke no CSP rule
 * and threw nothing; then it is closed. Call once at a test file's top level (it registers its own `afterEach`); the
 * browser and the gateway's address are read when a tab opens and when it is checked, after `beforeAll` made them.
 */
export function checkedTabs(browser: () => Browser, baseUrl: () => string): (options?: TabOptions) => Promise<BuyerTab> {
  const open: BuyerTab[] = [];
  afterEach(async () => {
    for (const tab of open.splice(0)) {
      expect(foreignRequests(tab, baseUrl())).toEqual([]);
      expect(tab.errors.filter((e) => /Content Security Policy|Refused to|violates|Uncaught/i.test(e))).toEqual([]);
      await tab.close();
    }
  });
  return async (options = {}) => {
    const tab = await openTab(browser(), options);
    open.push(tab);
    return tab;
  };
}

/** Origins other than the gateway's that the page contacted (data: URIs are not requests to anyone). */
export function foreignRequests(tab: BuyerTab, baseUrl: string): string[] {
  const own = new URL(baseUrl).origin;
  return tab.requests.filter((u) => !u.startsWith('data:') && new URL(u).origin !== own);
}

/** Saves a full-page screenshot under test-results/checkout/ for people to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** True when the page is wider than its viewport (horizontal scrolling). */
export const scrollsSideways = (page: Page): Promise<boolean> =>
  page.evaluate<boolean>('document.documentElement.scrollWidth > document.documentElement.clientWidth');

/**
 * The violations axe-core finds in the page as it is now, with every rule of its default set. axe (its minified
 * build) is put into a document once and run there: @axe-core/playwright, used before, sent its source to the page
 * twice per check and finished each run in a new blank page, seconds a check where the run takes a tenth of that
 * (ADR 0027). Only violations are gathered in full (`resultTypes`): the passes are not needed.
 */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const AXE_VIOLATIONS = `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
  id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')),
})))`;
interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** No serious or critical axe-core violation on the page as it is now. */
export const expectAccessible = async (page: Page): Promise<void> => {
  // axe runs in the top document: the dashboard and the checkout page have no frames, and a frame would go unchecked.
  expect(page.frames()).toHaveLength(1);
  if (!(await page.evaluate<boolean>("typeof window.axe === 'object'"))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<Violation[]>(AXE_VIOLATIONS);
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
};
