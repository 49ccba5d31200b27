import { Router } from 'express';
import { cancelLinkBody } from '@pl/contracts';
import { listDeliveriesInput, toDeliveryId } from '../../../domain/checkout-commands';
import type { HttpDeps } from '../deps';
import { identityOf, requestIdOf } from '../context';
import { authenticateApiKey } from '../middlewares/authenticate-api-key';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

/** `/merchant/v1/webhook-deliveries`: the merchant's webhook delivery log (account API keys). */
export function webhookDeliveriesRoutes(deps: HttpDeps): Router {
  const router = Router();
  const auth = authenticateApiKey(deps.apiKeys, deps.rateLimits);
  const limit = limitByCredential(deps.rateLimits);
  router
    .route('/')
    .get(
      auth,
      limit,
      route({
        query: listDeliveriesInput,
        handle: async ({ res, query }) => {
          res.json(await deps.deliveries.list(identityOf(res), query, requestIdOf(res)));
        },
      }),
    )
    .all(wrongMethod(['GET']));
  router
    .route('/:id/resend')
    .post(
      auth,
      limit,
      // Resend takes an empty JSON object (or no body) and nothing else, like cancel.
      route({
        body: cancelLinkBody,
        emptyBodyAs: {},
        handle: async ({ req, res }) => {
          const delivery = await deps.deliveries.resend(identityOf(res), toDeliveryId(req.params.id), requestIdOf(res));
          // 202: the new series is scheduled, not yet delivered.
          res.status(202).json(delivery);
        },
      }),
    )
    .all(wrongMethod(['POST']));
  return router;
}
