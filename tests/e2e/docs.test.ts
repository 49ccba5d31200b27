// GET /docs in a real browser (Debian's Chromium): Scalar renders the API reference from the gateway's own
// /openapi.json under the page's strict CSP, contacting no other host and breaking no CSP rule.
import type { Browser, Page } from 'playwright-core';
import { startSystem, type TestSystem } from '../support/system';
import { checkedTabs, launchBrowser, screenshot, type BuyerTab } from './browser';

let sys: TestSystem;
let browser: Browser;

beforeAll(async () => {
  [sys, browser] = await Promise.all([startSystem(), launchBrowser()]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await sys?.stop();
});
/** Every tab is checked after each test: it talked to nobody but the gateway, broke no CSP rule, threw nothing. */
const openCheckedTab = checkedTabs(
  () => browser,
  () => sys.baseUrl,
);

const tab = async (): Promise<BuyerTab> => {
  const t = await openCheckedTab({ locale: 'en-US' });
  return t;
};

/** A small document of our own, with what a reference shows: tags, summaries, a request body, a response schema. */
const STUB_SPEC = {
  openapi: '3.1.0',
  info: { title: 'Stub payment links API', version: '1.0.0', description: 'A stub for the docs page test.' },
  paths: {
    '/merchant/v1/payment-links': {
      post: {
        operationId: 'createStubLink',
        summary: 'Create a stub payment link',
        tags: ['Payment links'],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { type: 'object', required: ['amount'], properties: { amount: { type: 'string', example: '1000.00' } } } },
          },
        },
        responses: {
          '201': { description: 'Created', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } } },
        },
      },
    },
    '/merchant/v1/payment-links/{id}': {
      get: {
        operationId: 'readStubLink',
        summary: 'Read a stub payment link',
        tags: ['Payment links'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
        responses: { '200': { description: 'The link' }, '404': { description: 'No such link' } },
      },
    },
  },
};

/** Serves `spec` as the gateway's /openapi.json to this tab (same origin: the page cannot tell). */
const stubSpec = (page: Page, spec: unknown) =>
  page.route(`${sys.baseUrl}/openapi.json`, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(spec) }));

const openDocs = async (page: Page) => {
  const res = await page.goto(`${sys.baseUrl}/docs`);
  if (!res) throw new Error('no response for /docs');
  return res;
};

describe('the API reference at /docs', () => {
  it('renders the operations of /openapi.json under a strict CSP, from the gateway alone', async () => {
    const t = await tab();
    await stubSpec(t.page, STUB_SPEC);
    const res = await openDocs(t.page);
    expect(res.status()).toBe(200);
    const csp = res.headers()['content-security-policy'] ?? '';
    expect(csp).toMatch(/^default-src 'self'; script-src 'self'; style-src 'self' 'sha256-/);
    expect(csp).not.toMatch(/unsafe-eval|https?:/);

    await t.page.getByRole('heading', { name: 'Create a stub payment link' }).waitFor();
    await t.page.getByRole('heading', { name: 'Read a stub payment link' }).waitFor();
    expect(await t.page.getByRole('heading', { name: 'Stub payment links API' }).isVisible()).toBe(true);
    // Styled (the hashed style elements applied): the layout has a sidebar beside the content, not raw stacked markup.
    expect(await t.page.evaluate<string>("getComputedStyle(document.querySelector('.scalar-app') ?? document.body).display")).not.toBe('inline');
    // Nothing offers Scalar's hosted services (agent chat, MCP, the request client that goes through its proxy).
    expect(await t.page.getByText(/Generate MCP|Ask AI|Test Request/).count()).toBe(0);
    await screenshot(t.page, 'docs-reference');

    // What a reader does next draws more (a dialog, another theme) under the same CSP: search, then dark mode.
    await t.page
      .getByRole('button', { name: /search/i })
      .first()
      .click();
    await t.page.getByRole('dialog').getByText('Read a stub payment link').first().waitFor();
    await t.page.keyboard.press('Escape');
    await t.page
      .getByRole('button', { name: /dark mode/i })
      .first()
      .click();
    await t.page.locator('body.dark-mode').waitFor({ state: 'attached' });

    // The page asked the gateway for its scripts and the document, and nothing else anywhere.
    const own = t.requests.map((u) => new URL(u).pathname);
    expect(own).toEqual(expect.arrayContaining(['/docs', '/docs/assets/api-reference.js', '/docs/assets/start.js', '/openapi.json']));
  });

  it("renders the gateway's own document: its title, its first operation and every tag in the navigation", async () => {
    const res = await sys.http.get('/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body as { info: { title: string }; paths: Record<string, Record<string, { summary?: string; tags?: string[] }>> };
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
    const tags = [...new Set(operations.flatMap((op) => op.tags ?? []))];
    const first = operations.find((op) => op.summary && op.tags?.[0] === tags[0])?.summary;
    expect(tags.length).toBeGreaterThan(1);
    expect(first).toBeDefined();

    const t = await tab();
    await openDocs(t.page);
    await t.page.getByRole('heading', { name: doc.info.title, exact: true }).first().waitFor();
    // Operations further down are drawn as they are scrolled to; the first is drawn at once.
    await t.page.getByRole('heading', { name: first!, exact: true }).first().waitFor();
    const nav = await t.page.locator('nav, aside').first().innerText();
    for (const tag of tags) expect(`${tag}: ${nav.includes(tag)}`).toBe(`${tag}: true`);
    await screenshot(t.page, 'docs-gateway-reference');
    expect(t.requests.map((u) => new URL(u).pathname)).toContain('/openapi.json');
  });
});
