import { Router } from 'express';
import type { HttpDeps } from '../deps';
import { authenticateCashierOrSession } from '../middlewares/authenticate-cashier';
import { authenticateSession } from '../middlewares/authenticate-session';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { cancelLink, createLink, getLink, listAttempts, listLinks } from './link-handlers';

/** Routes 2, 5, 8 and the session's route 6: `/api/v1/payment-links`, dashboard session (a cashier key may also create). */
export function dashboardLinksRoutes(deps: HttpDeps): Router {
  const router = Router();
  const session = [authenticateSession(deps), limitByCredential(deps.rateLimits)];
  router
    .route('/')
    .post(chain(authenticateCashierOrSession(deps), limitByCredential(deps.rateLimits), createLink(deps, 'api-v1-create', 'unless-cashier')))
    .get(chain(...session, listLinks(deps.links)))
    .all(wrongMethod(['GET', 'POST']));
  router
    .route('/:id')
    .get(chain(...session, getLink(deps.links)))
    .all(wrongMethod(['GET']));
  router
    .route('/:id/attempts')
    .get(chain(...session, listAttempts(deps.links)))
    .all(wrongMethod(['GET']));
  router
    .route('/:id/cancel')
    .post(chain(...session, cancelLink(deps, 'api-v1-cancel')))
    .all(wrongMethod(['POST']));
  return router;
}
