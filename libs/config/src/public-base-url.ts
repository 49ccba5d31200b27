import { z } from 'zod';

/**
 * The longest `PUBLIC_BASE_URL` accepted. Every link carries `checkout_url` three times (with its aliases), so
 * the worst-case size of a page of links on the bus is computed with this bound
 * (tests/integration/bus-reply-sizes.test.ts); a longer base would make that bound a guess.
 */
export const PUBLIC_BASE_URL_MAX = 256;

/** Base of the buyer-facing URLs (`{PUBLIC_BASE_URL}/p/{id}`): http(s), at most 256 characters, without a trailing slash. */
export const publicBaseUrl = z
  .url({ protocol: /^https?$/ })
  .max(PUBLIC_BASE_URL_MAX)
  .default('http://localhost:8080')
  .transform((u) => u.replace(/\/+$/, ''));
