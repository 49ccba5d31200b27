import { Router } from 'express';
import { changePasswordBody, updateAccountBody, type AccountSettingsView } from '@pl/contracts';
import { unauthorized } from '@pl/errors';
import { changePassword } from '../../../domain/change-password';
import type { HttpDeps } from '../deps';
import { identityOf, memberOf, sessionTokenOf } from '../context';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';
import { meView } from './me-view';

/**
 * `GET /api/v1/me`, `POST /api/v1/auth/password` and `PATCH /api/v1/account`, dashboard session only. Changing the
 * password and the account's policy need step-up (domain/step-up.ts).
 */
export function accountRoutes(deps: HttpDeps): Router {
  const session = [authenticateSession(deps), limitByCredential(deps.rateLimits)];
  const router = Router();
  router
    .route('/me')
    .get(
      chain(...session, async (_req, res) => {
        res.json(await meView(deps, identityOf(res), memberOf(res)));
      }),
    )
    .all(wrongMethod(['GET']));
  router
    .route('/auth/password')
    .post(
      chain(
        ...session,
        allow('self'),
        route({
          body: changePasswordBody,
          handle: async ({ req, res, body }) => {
            const sessionToken = sessionTokenOf(res);
            if (sessionToken === undefined) throw unauthorized('Missing, invalid or expired session');
            await changePassword(
              { users: deps.users, sessions: deps.sessions, assertUncommon: deps.assertUncommonPassword },
              { identity: identityOf(res), ip: req.ip ?? null, sessionToken, userId: memberOf(res).userId },
              body,
            );
            res.status(204).end();
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/account')
    .patch(
      chain(
        ...session,
        allow('account_policy'),
        route({
          body: updateAccountBody,
          handle: async ({ req, res, body }) => {
            const merchantId = identityOf(res).merchant_id;
            if (body.require_two_factor !== undefined) {
              await deps.secondFactorStore.setRequireTwoFactor(
                { userId: memberOf(res).userId, merchantId, ip: req.ip ?? null },
                body.require_two_factor,
              );
            }
            if (body.require_payout_approval !== undefined)
              await deps.payoutDestinations.setRequireApproval(merchantId, body.require_payout_approval);
            const payoutSettings = await deps.payoutDestinations.payoutSettings(merchantId);
            const settings = await deps.secondFactorStore.accountSettings(merchantId);
            if (!settings) throw unauthorized('Missing, invalid or expired session');
            const answer: AccountSettingsView = {
              merchant_id: settings.merchantId,
              name: settings.name,
              require_two_factor: settings.requireTwoFactor,
              require_payout_approval: payoutSettings.requireApproval,
            };
            res.json(answer);
          },
        }),
      ),
    )
    .all(wrongMethod(['PATCH']));
  return router;
}
