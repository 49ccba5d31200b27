import { Router } from 'express';
import { changePasswordBody, formatMoscow, type MeView } from '@pl/contracts';
import { unauthorized } from '@pl/errors';
import { changePassword } from '../../../domain/change-password';
import type { HttpDeps } from '../deps';
import { identityOf, sessionTokenOf } from '../context';
import { authenticateSession } from '../middlewares/authenticate-session';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

/** `GET /api/v1/me` and `POST /api/v1/auth/password`, dashboard session only. */
export function accountRoutes(deps: HttpDeps): Router {
  const session = [authenticateSession(deps), limitByCredential(deps.rateLimits)];
  const router = Router();
  router
    .route('/me')
    .get(
      chain(...session, async (_req, res) => {
        const merchant = await deps.accounts.findById(identityOf(res).merchant_id);
        if (!merchant) throw unauthorized('Missing, invalid or expired session');
        const me: MeView = {
          merchant_id: merchant.id,
          email: merchant.email,
          email_confirmed: merchant.emailConfirmed,
          created_at: formatMoscow(merchant.createdAt),
        };
        res.json(me);
      }),
    )
    .all(wrongMethod(['GET']));
  router
    .route('/auth/password')
    .post(
      chain(
        ...session,
        route({
          body: changePasswordBody,
          handle: async ({ req, res, body }) => {
            const sessionToken = sessionTokenOf(res);
            if (sessionToken === undefined) throw unauthorized('Missing, invalid or expired session');
            await changePassword(deps, { identity: identityOf(res), ip: req.ip ?? null, sessionToken }, body);
            res.status(204).end();
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  return router;
}
