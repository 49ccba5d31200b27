import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { rateLimited } from '@pl/errors';
import type { LimitDecision, LimitedCaller, RateLimits } from '../../../data/rate-limits';
import { identityOf, sessionTokenOf } from '../context';

const digest = (value: string): string => createHash('sha256').update(value).digest('base64url');

/** The IETF `RateLimit-*` headers, and `Retry-After` when the budget is spent. */
export function applyLimitHeaders(res: Response, d: LimitDecision): void {
  res.set('RateLimit-Limit', String(d.limit));
  res.set('RateLimit-Remaining', String(d.remaining));
  res.set('RateLimit-Reset', String(d.resetSeconds));
  if (!d.allowed) res.set('Retry-After', String(d.resetSeconds));
}

const applyDecision = (res: Response, d: LimitDecision): void => {
  applyLimitHeaders(res, d);
  if (!d.allowed) throw rateLimited('Too many requests for this credential; retry after the time in Retry-After');
};

/**
 * Per-credential budget, after authentication: an API key pair (one per merchant), a cashier key (one
 * per shop) or a session, each per mode (docs/test-mode.md): a test budget is prefixed `test:`, so load testing an
 * integration never spends the live one. Live keys keep the form they had before test mode. Over budget: 429
 * `common.err.rate_limited`. When this replica's lease of the budget covers the request, it is decided at once,
 * without a promise.
 */
export function limitByCredential(limits: RateLimits): RequestHandler {
  return (_req, res, next) => {
    const identity = identityOf(res);
    let caller: LimitedCaller;
    let key: string;
    if (identity.auth === 'cashier') {
      caller = 'cashier';
      key = `shop:${identity.shop_id ?? 'none'}`;
    } else if (identity.auth === 'session') {
      caller = 'session';
      key = digest(sessionTokenOf(res) ?? identity.merchant_id);
    } else {
      caller = 'api_key';
      key = identity.merchant_id;
    }
    if (identity.mode === 'test') key = `test:${key}`;
    const local = limits.consumeLocally(caller, key);
    if (local) {
      applyDecision(res, local);
      next();
      return undefined;
    }
    return limits.consume(caller, key).then((d) => {
      applyDecision(res, d);
      next();
    });
  };
}

/** A budget per client IP, taken before anything else is done for the request (login, the checkout's select). */
function limitByIp(limits: RateLimits, caller: 'login_ip' | 'select_ip', message: string): RequestHandler {
  return async (req, res, next) => {
    const d = await limits.consume(caller, req.ip ?? 'unknown');
    applyLimitHeaders(res, d);
    if (!d.allowed) throw rateLimited(message);
    next();
  };
}

/** Login attempts per client IP, before any password is checked. */
export const limitLoginByIp = (limits: RateLimits): RequestHandler =>
  limitByIp(limits, 'login_ip', 'Too many login attempts from this address; retry later');

/** `POST /p/{id}/select` per client IP: a route without credentials whose every call writes the link. */
export const limitSelectByIp = (limits: RateLimits): RequestHandler =>
  limitByIp(limits, 'select_ip', 'Too many requests from this address; retry later');

/** The key a login lockout is counted under: the normalised email, hashed (no address lands in Redis). */
export const loginNameKey = (email: string): string => digest(email.trim().toLowerCase());
