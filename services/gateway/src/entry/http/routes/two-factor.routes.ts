import { Router, type Request, type Response } from 'express';
import QRCode from 'qrcode';
import { confirmTotpBody, emptyBody, type RecoveryCodeSet, type TotpEnrollment } from '@pl/contracts';
import { invalidCode, twoFactorAlreadyEnabled, twoFactorNotEnabled, unauthorized } from '@pl/errors';
import type { FactorActor } from '../../../data/second-factor.repository';
import { totpUri } from '../../../domain/totp';
import type { HttpDeps } from '../deps';
import { identityOf, memberOf, sessionTokenOf } from '../context';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

const actorOf = (req: Request, res: Response): FactorActor => ({
  userId: memberOf(res).userId,
  merchantId: identityOf(res).merchant_id,
  ip: req.ip ?? null,
});

/**
 * `/api/v1/me/2fa/totp` (+ `/confirm`) and `/api/v1/me/2fa/recovery-codes`: the session user's own TOTP and recovery
 * codes. Turning TOTP off and making new recovery codes need step-up (the table of domain/step-up.ts, through
 * `allow`); confirming TOTP counts as verifying a second factor in the session.
 */
export function twoFactorRoutes(deps: HttpDeps): Router {
  const session = [authenticateSession(deps), limitByCredential(deps.rateLimits)];
  const router = Router();
  router
    .route('/totp')
    .post(
      chain(
        ...session,
        allow('self'),
        route({
          body: emptyBody,
          emptyBodyAs: {},
          handle: async ({ res }) => {
            const { userId } = memberOf(res);
            const user = await deps.users.findById(userId);
            if (!user) throw unauthorized('Missing, invalid or expired session');
            const secret = await deps.secondFactorStore.startTotp(userId);
            if (secret === null) throw twoFactorAlreadyEnabled();
            const uri = totpUri(secret, user.email);
            const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
            const answer: TotpEnrollment = {
              secret,
              otpauth_uri: uri,
              qr_data_url: `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`,
            };
            res.set('Cache-Control', 'no-store').status(201).json(answer);
          },
        }),
      ),
    )
    .delete(
      chain(...session, allow('self'), async (req, res) => {
        if (!(await deps.secondFactorStore.disableTotp(actorOf(req, res)))) throw twoFactorNotEnabled('TOTP is not on');
        res.status(204).end();
      }),
    )
    .all(wrongMethod(['POST', 'DELETE']));
  router
    .route('/totp/confirm')
    .post(
      chain(
        ...session,
        allow('self'),
        route({
          body: confirmTotpBody,
          handle: async ({ req, res, body }) => {
            const outcome = await deps.secondFactorStore.confirmTotp(actorOf(req, res), body.code, new Date());
            if (outcome === 'not_enabled') throw twoFactorNotEnabled('No TOTP enrollment is waiting: start one with POST /api/v1/me/2fa/totp');
            if (outcome === 'already_enabled') throw twoFactorAlreadyEnabled();
            if (outcome === 'invalid_code') throw invalidCode();
            // Confirming a new factor counts as verifying one: the session is stepped up from now.
            const token = sessionTokenOf(res);
            if (token !== undefined) await deps.sessions.recordSecondFactor(token);
            const answer: RecoveryCodeSet = { recovery_codes: outcome };
            res.set('Cache-Control', 'no-store').json(answer);
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/recovery-codes')
    .post(
      chain(
        ...session,
        allow('self'),
        route({
          body: emptyBody,
          emptyBodyAs: {},
          handle: async ({ req, res }) => {
            const codes = await deps.secondFactorStore.regenerateRecoveryCodes(actorOf(req, res));
            if (codes === null) throw twoFactorNotEnabled('Recovery codes back up a second factor: turn one on first');
            const answer: RecoveryCodeSet = { recovery_codes: codes };
            res.set('Cache-Control', 'no-store').status(201).json(answer);
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  return router;
}
