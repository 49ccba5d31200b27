import { Router, type Response } from 'express';
import { stringifySetCookie } from 'cookie';
import { formatMoscow, type LoginBody, loginBody } from '@pl/contracts';
import { rateLimited, unauthorized } from '@pl/errors';
import { parseOrThrow } from '../../../domain/validation';
import type { HttpDeps } from '../deps';
import { commandOf, sessionTokenOf } from '../context';
import { authenticateSession } from '../middlewares/authenticate-session';
import { applyLimitHeaders, limitLoginByIp, loginNameKey } from '../middlewares/rate-limit';
import { SESSION_COOKIE } from '../middlewares/credentials';
import { jsonBody } from '../middlewares/json-body';
import { wrongMethod } from '../middlewares/not-found';
import { validate } from '../middlewares/validate';

const setSessionCookie = (res: Response, value: string, expires: Date, secure: boolean): void => {
  const maxAge = Math.max(0, Math.floor((expires.getTime() - Date.now()) / 1000));
  res.append('Set-Cookie', stringifySetCookie(SESSION_COOKIE, value, { httpOnly: true, sameSite: 'lax', path: '/', secure, expires, maxAge }));
};

/** `POST /api/v1/auth/login` and `/logout`: dashboard sessions. */
export function authRoutes(deps: HttpDeps): Router {
  const router = Router();
  router
    .route('/login')
    .post(
      limitLoginByIp(deps.rateLimits),
      jsonBody(),
      validate((body) => parseOrThrow(loginBody, body, 'Request body')),
      async (_req, res) => {
        const { email, password } = commandOf<LoginBody>(res);
        // Counted per email whether or not the account exists, so a lockout reveals nothing either. The attempt
        // takes its point before the password is checked, in one atomic step: parallel guesses cannot all pass.
        const nameKey = loginNameKey(email);
        const attempt = await deps.rateLimits.loginAttempt(nameKey);
        if (!attempt.allowed) {
          applyLimitHeaders(res, attempt);
          throw rateLimited('Too many failed logins for this email; retry later');
        }
        const merchant = await deps.accounts.findByLogin(email, password);
        // One message for an unknown email and a wrong password: the answer must not reveal accounts.
        if (!merchant) throw unauthorized('Invalid email or password');
        await deps.rateLimits.loginSucceeded(nameKey);
        const { token, session } = await deps.sessions.create(merchant.id);
        setSessionCookie(res, token, session.expiresAt, deps.secureCookies);
        res.json({ session_token: token, expires_at: formatMoscow(session.expiresAt) });
      },
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
