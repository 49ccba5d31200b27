import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Router } from 'express';
import { unavailable } from '@pl/errors';
import type { HttpDeps } from '../http/deps';

/**
 * Scalar's standalone browser bundle (@scalar/api-reference 1.72.1, pinned), copied here by the gateway's
 * `npm run build` (copy-bundle.mjs). Both src/ and dist/ sit three levels below the package root, so this finds it
 * from ts sources (tests) and from the compiled gateway alike; the image ships dist whole.
 */
const BUNDLE_DIR = resolve(__dirname, '../../../dist/docs');
const BUNDLE_FILE = 'api-reference.js';

/**
 * Our own start script: a file, not inline, so `script-src 'self'` holds. No fonts from Scalar's CDN, no telemetry,
 * no "try it" client (it would offer Scalar's proxy), no AI agent chat nor "Generate MCP" (Scalar's services), no
 * developer toolbar; the document is the gateway's own, same origin.
 */
const START_SCRIPT = `Scalar.createApiReference('#reference', ${JSON.stringify({
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  hideTestRequestButton: true,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
})});\n`;

/**
 * The <style> elements the bundle writes without a nonce, allowed by their SHA-256 (CSP hash sources): its
 * Tailwind sheet, vue-sonner's two sheets, the default theme (for the options above), and the empty element one
 * of them starts as. They are the bundle's own constants; a new version of the bundle changes them, and
 * tests/e2e/docs.test.ts fails on any CSP violation until this list follows.
 */
const BUNDLE_STYLE_HASHES = [
  'sha256-d7niGYA9R/xp7r1pyc/+3ntTepKCabnrqd2exao76s4=',
  'sha256-DLlkYCuDYGe6ME23YkUFB7Tc36rGDeo4mVBFbZX3uaU=',
  'sha256-ZW1GSuo0pKyEx5Ar7ZC5Dflb/mjatjeTW9aVx0iZAzE=',
  'sha256-rO+6k1mDRASa9Q8IQu9I3bF+bjRdxDreAZCyGSaxzeI=',
  'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=',
];

/**
 * Only our own origin for scripts, fetches, images and fonts: no third-party host, no inline script, no eval.
 * Styles: our origin plus the bundle's hashed <style> elements; `style-src-attr 'unsafe-inline'` because Vue sets
 * style attributes (widths, positions) as it renders, and an attribute can neither run script nor, with img-src
 * and font-src at 'self', load anything from elsewhere.
 */
function docsCsp(secure: boolean): string {
  const directives = [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' ${BUNDLE_STYLE_HASHES.map((h) => `'${h}'`).join(' ')}`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ];
  // Upgrading on plain http would break local runs; a public https deployment gets it.
  if (secure) directives.push('upgrade-insecure-requests');
  return directives.join('; ');
}

interface Asset {
  body: Buffer;
  /** A content hash, in the page's link to the asset, so that exact version is cached for good. */
  version: string;
}

const asset = (body: Buffer): Asset => ({ body, version: createHash('sha256').update(body).digest('hex').slice(0, 12) });

const page = (bundle: Asset, start: Asset): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Payment links API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="reference"></div>
<script src="/docs/assets/${BUNDLE_FILE}?v=${bundle.version}"></script>
<script src="/docs/assets/start.js?v=${start.version}"></script>
</body>
</html>
`;

/**
 * `/docs`: the API reference, rendered in the browser by Scalar from the gateway's own `/openapi.json`. The page and
 * its two scripts come from the gateway; the bundle is read on first use and the page answers 503 until it is built.
 * Other paths and methods fall through to the JSON 404.
 */
export function docsRoutes(deps: Pick<HttpDeps, 'secureCookies'>, bundleDir = BUNDLE_DIR): Router {
  const csp = docsCsp(deps.secureCookies);
  const start = asset(Buffer.from(START_SCRIPT));
  let bundle: Asset | undefined;
  const loaded = (): Asset => {
    if (!bundle) {
      const path = resolve(bundleDir, BUNDLE_FILE);
      if (!existsSync(path)) throw unavailable('The API reference is not built: run `npm run build`');
      bundle = asset(readFileSync(path));
    }
    return bundle;
  };
  const router = Router();
  router.use((_req, res, next) => {
    res.set('Content-Security-Policy', csp);
    next();
  });
  router.get('/', (_req, res) => {
    const html = page(loaded(), start);
    // The page names the current asset versions, so it is revalidated every time.
    res.set({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' }).send(html);
  });
  router.get('/assets/:file', (req, res, next) => {
    const found = req.params.file === BUNDLE_FILE ? loaded() : req.params.file === 'start.js' ? start : undefined;
    if (!found) {
      next();
      return;
    }
    const cache = req.query.v === found.version ? 'public, max-age=31536000, immutable' : 'no-cache';
    res.set({ 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': cache }).send(found.body);
  });
  return router;
}
