import type { Request, Response } from 'express';
import { rateLimited } from '@pl/errors';
import type { LimitDecision, RateLimits } from '../../../data/rate-limits';
import { applyLimitHeaders } from './rate-limit';

const refuse = (res: Response, d: LimitDecision): never => {
  applyLimitHeaders(res, d);
  throw rateLimited('Too many failed authentications from this address; retry later');
};

/**
 * Runs a credential look-up unless the client IP's failed authentications are spent (429 then, without a
 * look-up). A miss counts against the IP; the atomic count decides, so parallel misses beyond the budget are
 * 429, not 401. Null means a miss the caller answers 401.
 */
export async function lookUpCountingFailures<T>(limits: RateLimits, req: Request, res: Response, lookUp: () => Promise<T | null>): Promise<T | null> {
  const ip = req.ip ?? 'unknown';
  const spent = await limits.authFailuresSpent(ip);
  if (spent) refuse(res, spent);
  const found = await lookUp();
  if (found) return found;
  const counted = await limits.authFailed(ip);
  if (!counted.allowed) refuse(res, counted);
  return null;
}
