import { Router, type Response } from 'express';
import {
  confirmEmailBody,
  emptyBody,
  formatMoscow,
  loginBody,
  loginSecondFactorBody,
  passwordResetBody,
  stepUpBody,
  passwordResetConfirmBody,
  signupBody,
  switchAccountBody,
} from '@pl/contracts';
import { forbidden, rateLimited, unauthorized } from '@pl/errors';
import type { MailingAction } from '../../../data/rate-limits';
import { openSession, signIn } from '../../../domain/sign-in';
import { proofOf } from '../../../domain/second-factor';
import { completeSecondStep, secondStepOf, stepUp } from '../../../domain/second-factor-sign-in';
import type { LimitDecision } from '../../../data/rate-limits';
import { confirmEmail, requestPasswordReset, resendConfirmation, resetPassword, signUp, type SignUpPorts } from '../../../domain/sign-up';
import type { HttpDeps } from '../deps';
import { identityOf, memberOf, sessionTokenOf } from '../context';
import { authenticateSession } from '../middlewares/authenticate-session';
import { chain } from '../middlewares/chain';
import { applyLimitHeaders, limitByCredential, limitLoginByIp, loginNameKey } from '../middlewares/rate-limit';
import { meView } from './me-view';
import { setSessionCookie } from './session-cookie';
import { wrongMethod } from '../middlewares/not-found';
import { route } from '../route';

/**
 * `POST /api/v1/auth/login`, `/logout` and `/switch`: dashboard sessions; `/signup`, `/confirm-email` (+ `/resend`),
 * `/password-reset` (+ `/confirm`): accounts merchants open and recover themselves, none of which tells whether an
 * email is known.
 */
export function authRoutes(deps: HttpDeps): Router {
  // Failed sign-ins are counted under the normalised email, hashed: no address lands in Redis.
  const signInPorts = {
    users: deps.users,
    sessions: deps.sessions,
    limiter: {
      attempt: (email: string) => deps.rateLimits.loginAttempt(loginNameKey(email)),
      succeeded: (email: string) => deps.rateLimits.loginSucceeded(loginNameKey(email)),
    },
    audit: deps.audit,
    secondStep: (pending: { userId: string; merchantId: string; epoch: number }) =>
      secondStepOf({ factors: deps.factors, challenges: deps.loginChallenges }, pending),
  };
  // Failed second factors are counted per user (the spec: 10 in 15 minutes, then 429 for the rest of the window).
  const secondFactorPorts = {
    factors: deps.factors,
    challenges: deps.loginChallenges,
    limiter: {
      attempt: (userId: string) => deps.rateLimits.secondFactorAttempt(userId),
      succeeded: (userId: string) => deps.rateLimits.secondFactorSucceeded(userId),
    },
  };
  const lockedOut = (res: Response, decision: LimitDecision): never => {
    applyLimitHeaders(res, decision);
    throw rateLimited('Too many failed second factors for this user; retry after the time in Retry-After');
  };
  const signUpPorts: SignUpPorts = { users: deps.users, assertUncommon: deps.assertUncommonPassword, signupEnabled: deps.signupEnabled };
  /** The budgets per client IP and per email of a route that mails (429 with Retry-After once either is spent). */
  const spendMailingBudget = async (res: Response, action: MailingAction, ip: string, email: string): Promise<void> => {
    const d = await deps.rateLimits.mailingRequest(action, ip, loginNameKey(email));
    applyLimitHeaders(res, d);
    if (!d.allowed) throw rateLimited('Too many requests of this kind; retry after the time in Retry-After');
  };
  const session = [authenticateSession(deps), limitByCredential(deps.rateLimits)];
  const router = Router();
  router
    .route('/signup')
    .post(
      route({
        body: signupBody,
        handle: async ({ req, res, body }) => {
          if (!deps.signupEnabled) throw forbidden('Sign-up is turned off on this deployment');
          await spendMailingBudget(res, 'signup', req.ip ?? 'unknown', body.email);
          await signUp(signUpPorts, body);
          res.status(202).json({});
        },
      }),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/confirm-email')
    .post(
      route({
        body: confirmEmailBody,
        handle: async ({ res, body }) => {
          await confirmEmail(signUpPorts, body.token);
          res.json({});
        },
      }),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/confirm-email/resend')
    .post(
      chain(
        ...session,
        route({
          body: emptyBody,
          emptyBodyAs: {},
          handle: async ({ req, res }) => {
            const user = await deps.users.findById(memberOf(res).userId);
            if (!user) throw unauthorized('Missing, invalid or expired session');
            await spendMailingBudget(res, 'confirm_resend', req.ip ?? 'unknown', user.email);
            await resendConfirmation(signUpPorts, user.id);
            res.status(202).json({});
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/password-reset')
    .post(
      route({
        body: passwordResetBody,
        handle: async ({ req, res, body }) => {
          await spendMailingBudget(res, 'password_reset', req.ip ?? 'unknown', body.email);
          await requestPasswordReset(signUpPorts, body.email);
          res.status(202).json({});
        },
      }),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/password-reset/confirm')
    .post(
      route({
        body: passwordResetConfirmBody,
        handle: async ({ req, res, body }) => {
          await resetPassword(signUpPorts, body, req.ip ?? null);
          res.status(204).end();
        },
      }),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/switch')
    .post(
      chain(
        ...session,
        route({
          body: switchAccountBody,
          handle: async ({ res, body }) => {
            const token = sessionTokenOf(res);
            if (token === undefined) throw unauthorized('Missing, invalid or expired session');
            const { userId } = memberOf(res);
            const memberships = await deps.users.memberships(userId);
            // Another user's account and one that does not exist answer alike: the id names nothing this user has.
            const target = memberships.find((m) => m.merchantId === body.merchant_id);
            if (!target) throw forbidden('The user is not a member of this account');
            await deps.sessions.switchAccount(token, target.merchantId);
            res.json(await meView(deps, { ...identityOf(res), merchant_id: target.merchantId }, { userId, role: target.role }));
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
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
          if (result.outcome === 'second_factor') {
            // No session yet: the second step answers the challenge (5 minutes, 5 tries).
            res.set('Cache-Control', 'no-store').json({ two_factor_required: true, challenge: result.challenge, methods: result.methods });
            return;
          }
          setSessionCookie(res, result.token, result.expiresAt, deps.secureCookies);
          res.json({ session_token: result.token, expires_at: formatMoscow(result.expiresAt) });
        },
      }),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/login/2fa')
    .post(
      limitLoginByIp(deps.rateLimits),
      route({
        body: loginSecondFactorBody,
        handle: async ({ req, res, body }) => {
          const result = await completeSecondStep(secondFactorPorts, body.challenge, proofOf(body));
          if (result.outcome === 'locked_out') return lockedOut(res, result.decision);
          const opened = await openSession(signInPorts, result.pending, req.ip ?? null, new Date());
          setSessionCookie(res, opened.token, opened.expiresAt, deps.secureCookies);
          res.json({ session_token: opened.token, expires_at: formatMoscow(opened.expiresAt) });
        },
      }),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/step-up')
    .post(
      chain(
        ...session,
        route({
          body: stepUpBody,
          handle: async ({ res, body }) => {
            const token = sessionTokenOf(res);
            if (token === undefined) throw unauthorized('Missing, invalid or expired session');
            const result = await stepUp(secondFactorPorts, memberOf(res).userId, proofOf(body));
            if (result.outcome === 'locked_out') return lockedOut(res, result.decision);
            await deps.sessions.recordSecondFactor(token);
            res.status(204).end();
          },
        }),
      ),
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
