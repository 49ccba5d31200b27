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

const applyDecision = (res: Response, d: LimitDecision | null | undefined): void => {
  if (!d) return;
  applyLimitHeaders(res, d);
  if (!d.allowed) throw rateLimited('Too many requests for this credential; retry after the time in Retry-After');
};

/**
 * Per-credential budget, after authentication: an API key pair (one per merchant), a cashier key (one
 * per shop) or a session. Over budget: 429 `common.err.rate_limited`. When this replica's lease of the
 * budget covers the request, it is decided at once, without a promise.
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

/** Login attempts per client IP, before any password is checked. */
export function limitLoginByIp(limits: RateLimits): RequestHandler {
  return async (req, res, next) => {
    const d = await limits.consume('login_ip', req.ip ?? 'unknown');
    if (d) {
      applyLimitHeaders(res, d);
      if (!d.allowed) throw rateLimited('Too many login attempts from this address; retry later');
    }
    next();
  };
}

/** The key a login lockout is counted under: the normalised email, hashed (no address lands in Redis). */
export const loginNameKey = (email: string): string => digest(email.trim().toLowerCase());
