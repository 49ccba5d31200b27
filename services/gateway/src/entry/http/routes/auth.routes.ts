import { Router, type Response } from 'express';
import { stringifySetCookie } from 'cookie';
import { formatMoscow, loginBody } from '@pl/contracts';
import { rateLimited } from '@pl/errors';
import { signIn } from '../../../domain/sign-in';
import type { HttpDeps } from '../deps';
import { sessionTokenOf } from '../context';
import { authenticateSession } from '../middlewares/authenticate-session';
import { applyLimitHeaders, limitLoginByIp, loginNameKey } from '../middlewares/rate-limit';
import { SESSION_COOKIE } from '../middlewares/credentials';
import { wrongMethod } from '../middlewares/not-found';
import { route } from '../route';

const setSessionCookie = (res: Response, value: string, expires: Date, secure: boolean): void => {
  const maxAge = Math.max(0, Math.floor((expires.getTime() - Date.now()) / 1000));
  res.append('Set-Cookie', stringifySetCookie(SESSION_COOKIE, value, { httpOnly: true, sameSite: 'lax', path: '/', secure, expires, maxAge }));
};

/** `POST /api/v1/auth/login` and `/logout`: dashboard sessions. */
export function authRoutes(deps: HttpDeps): Router {
  // Failed sign-ins are counted under the normalised email, hashed: no address lands in Redis.
  const signInPorts = {
    accounts: deps.accounts,
    sessions: deps.sessions,
    limiter: {
      attempt: (email: string) => deps.rateLimits.loginAttempt(loginNameKey(email)),
      succeeded: (email: string) => deps.rateLimits.loginSucceeded(loginNameKey(email)),
    },
    audit: deps.audit,
  };
  const router = Router();
  router
    .route('/login')
    .post(
      limitLoginByIp(deps.rateLimits),
      route({
        body: loginBody,
        handle: async ({ req, res, body }) => {
          // The client address as `trust proxy` makes it: a sign-in from an address new for the merchant is audited.
          const result = await signIn(signInPorts, body, req.ip ?? null);
          if (result.outcome === 'locked_out') {
            applyLimitHeaders(res, result.decision);
            throw rateLimited('Too many failed logins for this email; retry later');
          }
          setSessionCookie(res, result.token, result.expiresAt, deps.secureCookies);
          res.json({ session_token: result.token, expires_at: formatMoscow(result.expiresAt) });
        },
      }),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/logout')
    .post(authenticateSession(deps), async (_req, res) => {
      const token = sessionTokenOf(res);
      if (token) await deps.sessions.delete(token);
      setSessionCookie(res, '', new Date(0), deps.secureCookies);
      res.status(204).end();
    })
    .all(wrongMethod(['POST']));
  return router;
}
