import { Router } from 'express';
import type { HttpDeps } from '../deps';
import { authenticateCashier } from '../middlewares/authenticate-cashier';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { createLink } from './link-handlers';

/** Route 3: `POST /api/v1/merchant/payments`, cashier key only; the shop comes from the key. */
export function cashierPaymentsRoutes(deps: HttpDeps): Router {
  const router = Router();
  router
    .route('/')
    .post(chain(authenticateCashier(deps), limitByCredential(deps.rateLimits), createLink(deps, 'api-v1-merchant-payments', 'unless-cashier')))
    .all(wrongMethod(['POST']));
  return router;
}
