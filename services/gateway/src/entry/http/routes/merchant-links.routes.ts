import { Router } from 'express';
import type { HttpDeps } from '../deps';
import { authenticateApiKey } from '../middlewares/authenticate-api-key';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { cancelLink, createLink, getLink, listLinks } from './link-handlers';

/** Routes 1, 4, 6, 7: `/merchant/v1/payment-links`, account API keys. */
export function merchantLinksRoutes(deps: HttpDeps): Router {
  const router = Router();
  const auth = [authenticateApiKey(deps.apiKeys, deps.rateLimits), limitByCredential(deps.rateLimits)];
  router
    .route('/')
    .post(chain(...auth, createLink(deps, 'merchant-v1-create', 'required')))
    .get(chain(...auth, listLinks(deps.links)))
    .all(wrongMethod(['GET', 'POST']));
  router
    .route('/:id')
    .get(chain(...auth, getLink(deps.links)))
    .all(wrongMethod(['GET']));
  router
    .route('/:id/cancel')
    .post(chain(...auth, cancelLink(deps, 'merchant-v1-cancel')))
    .all(wrongMethod(['POST']));
  return router;
}
