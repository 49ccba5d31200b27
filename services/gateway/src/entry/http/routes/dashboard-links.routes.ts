import { Router, type Request, type Response } from 'express';
import { toLinkId } from '../../../domain/link-commands';
import { identityOf, requestIdOf } from '../context';
import type { HttpDeps } from '../deps';
import { authenticateCashierOrSession } from '../middlewares/authenticate-cashier';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { cancelLink, createLink, getLink, listAttempts, listLinks } from './link-handlers';

/** Routes 2, 5, 8 and the session's route 6: `/api/v1/payment-links`, dashboard session (a cashier key may also create). */
export function dashboardLinksRoutes(deps: HttpDeps): Router {
  const router = Router();
  const session = [authenticateSession(deps), limitByCredential(deps.rateLimits)];
  const linkExists = (req: Request, res: Response) => deps.links.get(identityOf(res), toLinkId(req.params.id), requestIdOf(res));
  router
    .route('/')
    .post(
      chain(
        authenticateCashierOrSession(deps),
        limitByCredential(deps.rateLimits),
        allow('operate_links'),
        createLink(deps, 'api-v1-create', 'unless-cashier'),
      ),
    )
    .get(chain(...session, allow('read'), listLinks(deps.links)))
    .all(wrongMethod(['GET', 'POST']));
  router
    .route('/:id')
    .get(chain(...session, allow('read'), getLink(deps.links)))
    .all(wrongMethod(['GET']));
  router
    .route('/:id/attempts')
    .get(chain(...session, allow('read'), listAttempts(deps.links)))
    .all(wrongMethod(['GET']));
  router
    .route('/:id/cancel')
    .post(chain(...session, allow('operate_links', linkExists), cancelLink(deps, 'api-v1-cancel')))
    .all(wrongMethod(['POST']));
  return router;
}
