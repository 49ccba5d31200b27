import { mkdirSync } from 'node:fs';
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
