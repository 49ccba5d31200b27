import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { scrollsSideways } from './browser';

/** What the dashboard's browser tests share: its words per language, the sizes, the accessibility check, the screenshots. */

/** Screenshots people read in docs/dashboard.md. */
const DOCS = join(__dirname, '..', '..', 'docs', 'dashboard');
export const PHONE = { width: 360, height: 780 };
export const DESKTOP = { width: 1280, height: 900 };
export type Language = 'ru' | 'en';
type Entry = string | Readonly<Record<string, string>> | ((...values: (string | number)[]) => string);
/**
 * The dashboard's own message catalogue (services/gateway/dashboard/src/i18n.ts), so each flow finds what a reader of
 * its language sees. Loaded at run time: a static import would bring Preact's DOM typings into the Node typecheck.
 */
const { MESSAGES } = jest.requireActual<{ MESSAGES: Record<Language, Record<string, Entry>> }>('../../services/gateway/dashboard/src/i18n');
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
export const COMBOS: { lang: Language; locale: string; size: typeof PHONE }[] = [
  { lang: 'en', locale: 'en-US', size: DESKTOP },
  { lang: 'ru', locale: 'ru-RU', size: DESKTOP },
  { lang: 'en', locale: 'en-US', size: PHONE },
  { lang: 'ru', locale: 'ru-RU', size: PHONE },
];

/** A port known before the gateway starts, so PUBLIC_BASE_URL (the CSRF check's origin) is the page's origin. */
export const freePort = async (): Promise<number> => {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
};

/** No serious or critical axe-core violation on the page as it is now. */
export const expectAccessible = async (page: Page): Promise<void> => {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)).toEqual([]);
};

/** Checks a page at its current size and saves it for docs/dashboard.md. */
export const inspect = async (page: Page, name: string): Promise<void> => {
  await expectAccessible(page);
  expect(await scrollsSideways(page)).toBe(false);
  mkdirSync(DOCS, { recursive: true });
  await page.screenshot({ path: join(DOCS, `${name}.png`), fullPage: true });
};

export const h1 = (page: Page) => page.locator('h1');
