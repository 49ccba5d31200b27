import type { Request, Response } from 'express';
import type { RequestHandler } from 'express';
import { unauthorized } from '@pl/errors';
import type { AccountRepository } from '../../../data/account.repository';
import type { SessionStore } from '../../../data/session.store';
import { looksLikeSessionToken } from '../../../domain/session-token';
import { setIdentity } from '../context';
import { bearerToken, sessionCookie } from './credentials';
import { sessionMode } from './request-mode';
import { assertSameOriginForCookie } from './same-origin';

const INVALID = 'Missing, invalid or expired session';

/**
 * The session token of a request: an `Authorization` header wins when present (an API client's
 * explicit choice); otherwise the `sid` cookie a browser sends.
 */
export function sessionTokenFrom(req: Request): string | null {
  const authorization = req.get('authorization');
  return authorization !== undefined ? bearerToken(authorization) : sessionCookie(req.get('cookie'));
}

export interface SessionAuthDeps {
  accounts: AccountRepository;
  sessions: SessionStore;
  /** `PUBLIC_BASE_URL`'s origin: where a cookie-authenticated change must come from. */
  publicOrigin: string;
}

/**
 * Resolves a session token to the merchant, reading the account fresh on every request: `email_confirmed`,
 * and the session epoch, so a session a password change ended is refused at once on every replica. Then the
 * CSRF check (after 401, as an authentication-stage check): a state-changing request authenticated by the
 * cookie must come from the dashboard's origin, else 403 `common.err.forbidden`. The mode is the `Pl-Mode` header's
 * (live when absent; any other value is 400).
 */
export async function authenticateSessionToken(deps: SessionAuthDeps, token: string | null, res: Response): Promise<void> {
  if (!token || !looksLikeSessionToken(token)) throw unauthorized(INVALID);
  const session = await deps.sessions.find(token);
  if (!session) throw unauthorized(INVALID);
  const merchant = await deps.accounts.findById(session.merchantId);
  if (!merchant) throw unauthorized(INVALID);
  // A password change moved the account's epoch on: every session opened before it has ended.
  if (merchant.sessionEpoch !== session.epoch) throw unauthorized(INVALID);
  assertSameOriginForCookie(res.req, deps.publicOrigin);
  const mode = sessionMode(res.req);
  setIdentity(res, { kind: 'merchant', merchant_id: merchant.id, auth: 'session', mode, email_confirmed: merchant.emailConfirmed }, token);
}

/** `/api/v1/*` (dashboard): a session token as `Authorization: Bearer` or cookie `sid`. */
export function authenticateSession(deps: SessionAuthDeps): RequestHandler {
  return async (req, res, next) => {
    await authenticateSessionToken(deps, sessionTokenFrom(req), res);
    next();
  };
}
