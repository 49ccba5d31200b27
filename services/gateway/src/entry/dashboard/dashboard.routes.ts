import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { Router, type RequestHandler } from 'express';
import helmet from 'helmet';
import { unavailable } from '@pl/errors';
import type { HttpDeps } from '../http/deps';

/**
 * What Vite builds from services/gateway/dashboard (`npm run build`). Both src/ and dist/ sit three levels below the
 * package root, so this finds the build from ts sources (tests, tsx) and from the compiled gateway alike.
 */
const BUILD_DIR = resolve(__dirname, '../../../dist/dashboard');

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

interface DashboardBuild {
  index: Buffer;
  assets: ReadonlyMap<string, { body: Buffer; contentType: string }>;
}

/** The built app, read once; null until it exists (a checkout that has not run `npm run build`). */
function readBuild(dir: string): DashboardBuild | null {
  const indexPath = join(dir, 'index.html');
  if (!existsSync(indexPath)) return null;
  const assetDir = join(dir, 'assets');
  const assets = new Map<string, { body: Buffer; contentType: string }>();
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      const contentType = CONTENT_TYPES[extname(name)];
      if (contentType) assets.set(name, { body: readFileSync(join(assetDir, name)), contentType });
    }
  }
  return { index: readFileSync(indexPath), assets };
}

/**
 * Only our own script, stylesheet and fetches; the QR code is drawn on a canvas and the favicon is a data: URI.
 * No inline script or style, no eval, no frames, no plugins, no base or form tricks.
 */
const dashboardCsp = (secure: boolean): RequestHandler =>
  helmet.contentSecurityPolicy({
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      fontSrc: ["'self'"],
      objectSrc: ["'none'"],
      frameAncestors: ["'none'"],
      formAction: ["'self'"],
      baseUri: ["'none'"],
      // Upgrading on plain http would break local runs; a public https deployment gets it.
      ...(secure ? { upgradeInsecureRequests: [] } : {}),
    },
  });

/**
 * `/dashboard`: the merchant dashboard, a single-page app. Its hashed assets are cached for good; every other
 * GET under /dashboard answers index.html (the app routes on the client). Other methods fall through to the
 * JSON 404 like any unknown route.
 */
export function dashboardRoutes(deps: HttpDeps, buildDir = BUILD_DIR): Router {
  let build: DashboardBuild | null = null;
  const loaded = (): DashboardBuild => {
    build ??= readBuild(buildDir);
    if (!build) throw unavailable('The dashboard is not built: run `npm run build`');
    return build;
  };
  const router = Router();
  router.use(dashboardCsp(deps.secureCookies));
  router.get('/assets/:file', (req, res, next) => {
    const asset = loaded().assets.get(req.params.file);
    if (!asset) {
      next();
      return;
    }
    // Vite names each asset by its content hash, so a name is one version forever.
    res.set({ 'Content-Type': asset.contentType, 'Cache-Control': 'public, max-age=31536000, immutable' });
    res.send(asset.body);
  });
  router.get(/^\/(?!assets\/).*/, (_req, res) => {
    const { index } = loaded();
    // The page names the current hashed assets, so it is revalidated every time.
    res.set({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' });
    res.send(index);
  });
  return router;
}
