import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The page's own script and stylesheet, read once at start. Both src/ and dist/ sit three levels
 * below the package root, so this finds the files from ts sources (tests, tsx) and from the build
 * alike; the image ships the whole package, src/ included.
 */
const ASSET_DIR = resolve(__dirname, '../../../src/entry/checkout/assets');

interface StaticAsset {
  /** The path under the router's mount, with a content hash so a new version is never served stale. */
  href: string;
  contentType: string;
  body: Buffer;
  version: string;
}

function load(file: string, contentType: string): StaticAsset {
  const body = readFileSync(resolve(ASSET_DIR, file));
  const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { href: `/p/assets/${file}?v=${version}`, contentType, body, version };
}

export interface CheckoutAssets {
  script: StaticAsset;
  style: StaticAsset;
  byName: ReadonlyMap<string, StaticAsset>;
}

export function loadCheckoutAssets(): CheckoutAssets {
  const script = load('checkout.js', 'text/javascript; charset=utf-8');
  const style = load('checkout.css', 'text/css; charset=utf-8');
  return {
    script,
    style,
    byName: new Map([
      ['checkout.js', script],
      ['checkout.css', style],
    ]),
  };
}
