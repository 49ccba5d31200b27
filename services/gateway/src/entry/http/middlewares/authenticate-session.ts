import type { Request, Response } from 'express';
import type { RequestHandler } from 'express';
import { twoFactorRequired, unauthorized } from '@pl/errors';
import type { SessionStore } from '../../../data/session.store';
import type { UserRepository } from '../../../data/user.repository';
import { actAs } from '../../../domain/request-context';
import { looksLikeSessionToken } from '../../../domain/session-token';
import { servedWhileEnrolling } from '../../../domain/step-up';
import { setIdentity, setMember, setSecondFactor } from '../context';
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
  users: Pick<UserRepository, 'sessionUser'>;
  sessions: SessionStore;
  /** `PUBLIC_BASE_URL`'s origin: where a cookie-authenticated change must come from. */
  publicOrigin: string;
}

/**
 * Resolves a session token to its user and account, reading the user and their membership fresh on every request:
 * `email_confirmed`, the session epoch (a session a password change or reset ended is refused at once on every
 * replica) and the role (a member removed from the account is refused at once, on every replica). Then the
 * CSRF check (after 401, as an authentication-stage check): a state-changing request authenticated by the
 * cookie must come from the dashboard's origin, else 403 `common.err.forbidden`. The mode is the `Pl-Mode` header's
 * (live when absent; any other value is 400). Then the account's two-factor policy: a member without a second factor
 * in an account that requires one is served only the routes that enroll one (else 403 `auth.err.two_factor_required`).
 */
export async function authenticateSessionToken(deps: SessionAuthDeps, token: string | null, res: Response): Promise<void> {
  if (!token || !looksLikeSessionToken(token)) throw unauthorized(INVALID);
  const session = await deps.sessions.find(token);
  if (!session) throw unauthorized(INVALID);
  const user = await deps.users.sessionUser(session.userId, session.merchantId);
  // A password change or reset moved the user's epoch on: every session opened before it has ended. A user no
  // longer a member of the session's account has no session in it.
  if (user?.sessionEpoch !== session.epoch || !user.role) throw unauthorized(INVALID);
  assertSameOriginForCookie(res.req, deps.publicOrigin);
  const mode = sessionMode(res.req);
  setIdentity(res, { kind: 'merchant', merchant_id: session.merchantId, auth: 'session', mode, email_confirmed: user.emailConfirmed }, token);
  setMember(res, { userId: user.id, role: user.role });
  actAs(user.id, user.role, session.merchantId);
  // The idle clock moves on use; the store writes it at most once a minute (docs/adr/0030).
  await deps.sessions.markSeen(token, session);
  setSecondFactor(res, { enrolled: user.hasSecondFactor, verifiedAt: session.secondFactorAt });
  if (user.accountRequiresTwoFactor && !user.hasSecondFactor && !servedWhileEnrolling(pathOf(res.req))) {
    throw twoFactorRequired('This account requires a second factor: enroll one (POST /api/v1/me/2fa/totp) first');
  }
}

/** The request's path without its query, as mounted (`/api/v1/...`). */
const pathOf = (req: Request): string => {
  const url = req.originalUrl;
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

/** `/api/v1/*` (dashboard): a session token as `Authorization: Bearer` or cookie `sid`. */
export function authenticateSession(deps: SessionAuthDeps): RequestHandler {
  return async (req, res, next) => {
    await authenticateSessionToken(deps, sessionTokenFrom(req), res);
    next();
  };
}
