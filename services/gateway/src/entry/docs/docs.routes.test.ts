import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import helmet from 'helmet';
import pino from 'pino';
import { errorHandler } from '../http/middlewares/error-handler';
import { routeNotFound } from '../http/middlewares/not-found';
import { docsRoutes } from './docs.routes';

const BUNDLE = 'window.Scalar = { createApiReference() {} };';
const BUNDLE_VERSION = createHash('sha256').update(BUNDLE).digest('hex').slice(0, 12);
let dir: string;
const servers: Server[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'docs-'));
});
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

const writeBundle = () => writeFileSync(join(dir, 'api-reference.js'), BUNDLE);

/** The gateway's order: helmet's defaults for every response, then the docs, then the JSON 404 and errors. */
const start = async (secure = false): Promise<string> => {
  const app = express()
    .use(helmet())
    .use('/docs', docsRoutes({ secureCookies: secure }, dir))
    .use(routeNotFound)
    .use(errorHandler(pino({ level: 'silent' })));
  const server = app.listen(0);
  servers.push(server);
  await new Promise((r) => server.once('listening', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const directives = (res: Response): Map<string, string> =>
  new Map(
    (res.headers.get('content-security-policy') ?? '').split(';').map((d) => {
      const [name = '', ...values] = d.trim().split(/\s+/);
      return [name, values.join(' ')];
    }),
  );

/** The page's script sources, in order. */
const scripts = (html: string): string[] => [...html.matchAll(/<script src="([^"]+)"><\/script>/g)].map((m) => m[1]!);

describe('the docs routes', () => {
  it('answer /docs with a page that loads the bundle and the start script, both versioned, revalidated each time', async () => {
    writeBundle();
    const base = await start();
    for (const path of ['/docs', '/docs/']) {
      const res = await fetch(base + path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const html = await res.text();
      expect(html).not.toMatch(/<script>|<style|style=|https?:\/\//);
      expect(scripts(html)).toEqual([
        `/docs/assets/api-reference.js?v=${BUNDLE_VERSION}`,
        expect.stringMatching(/^\/docs\/assets\/start\.js\?v=[0-9a-f]{12}$/),
      ]);
    }
  });

  it('send a strict CSP: own origin only, no inline script, no eval, hashed style elements, no framing', async () => {
    writeBundle();
    const res = await fetch(`${await start()}/docs`);
    const csp = directives(res);
    expect(csp.get('default-src')).toBe("'self'");
    expect(csp.get('script-src')).toBe("'self'");
    expect(csp.get('connect-src')).toBe("'self'");
    expect(csp.get('font-src')).toBe("'self'");
    expect(csp.get('img-src')).toBe("'self' data:");
    expect(csp.get('object-src')).toBe("'none'");
    expect(csp.get('frame-ancestors')).toBe("'none'");
    expect(csp.get('base-uri')).toBe("'none'");
    expect(csp.get('style-src')).toMatch(/^'self'( 'sha256-[A-Za-z0-9+/]{43}=')+$/);
    expect(csp.get('style-src-attr')).toBe("'unsafe-inline'");
    // No host but our own anywhere, nothing unsafe but style attributes.
    expect(res.headers.get('content-security-policy')).not.toMatch(/https?:|\*|unsafe-eval/);
    expect([...csp.entries()].filter(([, v]) => v.includes('unsafe')).map(([k]) => k)).toEqual(['style-src-attr']);
    expect(csp.has('upgrade-insecure-requests')).toBe(false);
    expect(directives(await fetch(`${await start(true)}/docs`)).has('upgrade-insecure-requests')).toBe(true);
  });

  it('serve the versioned scripts for a year, and revalidate any other version', async () => {
    writeBundle();
    const base = await start();
    const [bundleSrc = '', startSrc = ''] = scripts(await (await fetch(`${base}/docs`)).text());
    for (const src of [bundleSrc, startSrc]) {
      const res = await fetch(base + src);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    }
    expect(await (await fetch(base + bundleSrc)).text()).toBe(BUNDLE);
    const start_ = await (await fetch(base + startSrc)).text();
    expect(start_).toContain('Scalar.createApiReference(\'#reference\', {"url":"/openapi.json","withDefaultFonts":false');
    const stale = await fetch(`${base}/docs/assets/api-reference.js?v=000000000000`);
    expect(stale.headers.get('cache-control')).toBe('no-cache');
    expect((await fetch(`${base}/docs/assets/api-reference.js`)).headers.get('cache-control')).toBe('no-cache');
  });

  it('answer the JSON 404 for unknown assets, paths and methods', async () => {
    writeBundle();
    const base = await start();
    for (const [method, path] of [
      ['GET', '/docs/assets/nope.js'],
      ['GET', '/docs/assets/../package.json'],
      ['GET', '/docs/other'],
      ['POST', '/docs'],
    ] as const) {
      const res = await fetch(base + path, { method });
      expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 404`);
      expect(await res.json()).toMatchObject({ error: { code: 'common.err.not_found' } });
    }
  });

  it('answer 503 in the JSON error shape until the bundle is built', async () => {
    const base = await start();
    for (const path of ['/docs', '/docs/assets/api-reference.js']) {
      const res = await fetch(base + path);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: { code: expect.any(String), message: expect.stringContaining('npm run build') } });
    }
    writeBundle();
    expect((await fetch(`${base}/docs`)).status).toBe(200);
  });
});
