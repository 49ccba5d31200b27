import type { Request } from 'express';
import { forbidden } from '@pl/errors';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether a request of this method changes state (and so must not be forged by another site). */
const isStateChanging = (method: string): boolean => STATE_CHANGING.has(method.toUpperCase());

/** The origin of a header value that is a URL, or null for anything else (including the opaque `null`). */
function originOf(value: string | undefined): string | null {
  if (value === undefined || value === '' || value === 'null') return null;
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}

/**
 * Whether a request was sent by a page of `publicOrigin`: its `Origin`, or without one its `Referer`, names
 * that origin. A request with neither is not known to come from the dashboard, so it does not count as such.
 */
function comesFrom(req: Request, publicOrigin: string): boolean {
  const origin = req.get('origin');
  const claimed = origin !== undefined ? originOf(origin) : originOf(req.get('referer'));
  return claimed === publicOrigin;
}

/**
 * CSRF: a state-changing request whose credential the browser attached by itself (the `sid` cookie) must come
 * from the dashboard's own origin: 403 `common.err.forbidden` otherwise. A request carrying `Authorization` is
 * exempt: another site cannot make a browser send that header.
 */
export function assertSameOriginForCookie(req: Request, publicOrigin: string): void {
  if (req.get('authorization') !== undefined || !isStateChanging(req.method)) return;
  if (!comesFrom(req, publicOrigin)) throw forbidden('Cross-site request refused: a cookie-authenticated change must come from the dashboard');
}
