import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Express } from 'express';
import { OPERATIONS } from '@pl/openapi';
import type { HttpDeps } from '../src/entry/http/deps';
import { createHttpApp } from '../src/entry/server';
import { startHarness, type Harness } from './harness';

/**
 * The OpenAPI document at the gateway: served at GET /openapi.json as committed, and naming every route the app mounts
 * (read from express's router stack, so a new route without an operation fails here).
 */

interface Layer {
  rawPath?: unknown;
  route?: { path: string | RegExp; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/** Whatever a router factory asks of its dependencies at mount time: a value that is every function and object. */
const anything: unknown = new Proxy(() => undefined, {
  get: (_target, key) => (key === Symbol.toPrimitive ? () => '' : key === 'then' ? undefined : anything),
  apply: () => anything,
});

/** `METHOD /path` of every route: app-level mounts joined with their routers' routes, `:id` as `{id}`. */
function mountedRoutes(app: Express): string[] {
  const routes: string[] = [];
  const walk = (stack: Layer[], prefix: string): void => {
    for (const layer of stack) {
      if (layer.route) {
        const { path, methods } = layer.route;
        // The dashboard serves its app at every path but its assets (a RegExp route): `/dashboard` in the document.
        const full = path instanceof RegExp ? prefix : `${prefix}${path === '/' ? '' : path}`;
        for (const method of Object.keys(methods).filter((m) => m !== '_all'))
          routes.push(`${method.toUpperCase()} ${full.replace(/:(\w+)/g, '{$1}')}`);
      } else if (layer.handle.stack && typeof layer.rawPath === 'string') {
        walk(layer.handle.stack, `${prefix}${layer.rawPath === '/' ? '' : layer.rawPath}`);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return routes;
}

describe('the routes the gateway mounts', () => {
  it('each have an operation in the document, and every operation a route', () => {
    const routes = mountedRoutes(createHttpApp(anything as HttpDeps));
    // `/p/{*rest}` is the checkout's "no such page" for anything else under /p: it names no resource.
    const served = routes.filter((r) => r !== 'GET /p/{*rest}');
    expect(routes).toContain('GET /p/{*rest}');
    const documented = OPERATIONS.map((o) => `${o.method.toUpperCase()} ${o.path}`);
    expect([...new Set(served)].sort()).toEqual([...documented].sort());
  });
});

describe('GET /openapi.json', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.stop());

  it('answers the document as committed in docs/openapi.json, without credentials', async () => {
    const res = await h.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const committed: unknown = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'docs', 'openapi.json'), 'utf8'));
    expect(res.body).toEqual(committed);
  });

  it('is 405 for another method, with the error shape and Allow', async () => {
    const res = await h.request('POST', '/openapi.json', { body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(res.body.error.code).toBe('common.err.method_not_allowed');
  });
});
