import { Router } from 'express';
import { changePasswordBody } from '@pl/contracts';
import { unauthorized } from '@pl/errors';
import { changePassword } from '../../../domain/change-password';
import type { HttpDeps } from '../deps';
import { identityOf, memberOf, sessionTokenOf } from '../context';
import { authenticateSession } from '../middlewares/authenticate-session';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';
import { meView } from './me-view';

/** `GET /api/v1/me` and `POST /api/v1/auth/password`, dashboard session only. */
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
  return router;
}
