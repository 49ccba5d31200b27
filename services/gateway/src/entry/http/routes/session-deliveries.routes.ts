import { Router } from 'express';
import { emptyBody } from '@pl/contracts';
import { listDeliveriesInput, toDeliveryId } from '../../../domain/checkout-commands';
import { identityOf, requestIdOf } from '../context';
import type { HttpDeps } from '../deps';
import { authenticateSession } from '../middlewares/authenticate-session';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

/**
 * `/api/v1/webhook-deliveries`: the delivery log for the dashboard session, as `/merchant/v1/webhook-deliveries`
 * answers it for API keys (the notifier checks the link, shop or delivery is the merchant's).
 */
export function sessionDeliveriesRoutes(deps: HttpDeps): Router {
  const router = Router();
  const session = [authenticateSession(deps), limitByCredential(deps.rateLimits)];
  router
    .route('/')
    .get(
      chain(
        ...session,
        route({
          query: listDeliveriesInput,
          handle: async ({ res, query }) => {
            res.json(await deps.deliveries.list(identityOf(res), query, requestIdOf(res)));
          },
        }),
      ),
    )
    .all(wrongMethod(['GET']));
  router
    .route('/:id/resend')
    .post(
      chain(
        ...session,
        route({
          body: emptyBody,
          emptyBodyAs: {},
          handle: async ({ req, res }) => {
            // 202: the new series is scheduled, not yet delivered.
            res.status(202).json(await deps.deliveries.resend(identityOf(res), toDeliveryId(req.params.id), requestIdOf(res)));
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  return router;
}
