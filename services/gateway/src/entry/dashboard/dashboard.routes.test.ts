import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import helmet from 'helmet';
import pino from 'pino';
import type { HttpDeps } from '../http/deps';
import { errorHandler } from '../http/middlewares/error-handler';
import { routeNotFound } from '../http/middlewares/not-found';
import { dashboardRoutes } from './dashboard.routes';

const INDEX = '<!doctype html><title>app</title><script type="module" src="/dashboard/assets/index-abc123.js"></script>';
let dir: string;
const servers: Server[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dashboard-'));
});
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

const writeBuild = () => {
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
  writeFileSync(join(dir, 'assets', 'index-def456.css'), 'body{}');
};

/** The gateway's order: helmet's defaults for every response, then the dashboard, then the JSON 404 and errors. */
const start = async (secure = false): Promise<string> => {
  const app = express()
    .use(helmet())
    .use('/dashboard', dashboardRoutes({ secureCookies: secure } as HttpDeps, dir))
    .use(routeNotFound)
    .use(errorHandler(pino({ level: 'silent' })));
  const server = app.listen(0);
  servers.push(server);
  await new Promise((r) => server.once('listening', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

describe('the dashboard routes', () => {
  it('answer index.html with the strict CSP for every page path, revalidated each time', async () => {
    writeBuild();
    const base = await start();
    for (const path of [
      '/dashboard',
      '/dashboard/',
      '/dashboard/login',
      '/dashboard/links/0f8fa0c2-5c1e-4d8b-9b1e-3c4f5a6b7c8d',
      '/dashboard/no/such/page',
    ]) {
      const res = await fetch(base + path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toBe(INDEX);
      expect(res.headers.get('content-security-policy')).toBe(
        "default-src 'self';script-src 'self';style-src 'self';img-src 'self' data:;connect-src 'self';font-src 'self';object-src 'none';frame-ancestors 'none';form-action 'self';base-uri 'none'",
      );
    }
  });

  it('serve hashed assets for a year with their type; an unknown asset is the JSON 404', async () => {
    writeBuild();
    const base = await start();
    const js = await fetch(`${base}/dashboard/assets/index-abc123.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await js.text()).toBe('console.log(1)');
    expect((await fetch(`${base}/dashboard/assets/index-def456.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    const missing = await fetch(`${base}/dashboard/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'common.err.not_found' } });
  });

  it('leave other methods to the JSON 404, and upgrade requests on an https deployment', async () => {
    writeBuild();
    const base = await start(true);
    const post = await fetch(`${base}/dashboard/links`, { method: 'POST' });
    expect(post.status).toBe(404);
    expect(await post.json()).toMatchObject({ error: { code: 'common.err.not_found' } });
    expect((await fetch(`${base}/dashboard`)).headers.get('content-security-policy')).toMatch(/;upgrade-insecure-requests$/);
  });

  it('say 503 when the app is not built, and serve it once it is', async () => {
    const base = await start();
    const res = await fetch(`${base}/dashboard/links`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { code: 'common.err.unavailable' } });
    writeBuild();
    expect((await fetch(`${base}/dashboard/links`)).status).toBe(200);
  });
});
