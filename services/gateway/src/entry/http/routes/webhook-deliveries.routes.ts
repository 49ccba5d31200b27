import { Router } from 'express';
import { checkResendBody, toDeliveryId, toListDeliveriesCommand } from '../../../domain/checkout-commands';
import type { HttpDeps } from '../deps';
import { identityOf, requestIdOf } from '../context';
import { authenticateApiKey } from '../middlewares/authenticate-api-key';
import { jsonBody } from '../middlewares/json-body';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { validate } from '../middlewares/validate';

/** `/merchant/v1/webhook-deliveries`: the merchant's webhook delivery log (account API keys). */
export function webhookDeliveriesRoutes(deps: HttpDeps): Router {
  const router = Router();
  const auth = authenticateApiKey(deps.apiKeys, deps.rateLimits);
  const limit = limitByCredential(deps.rateLimits);
  router
    .route('/')
    .get(auth, limit, async (req, res) => {
      res.json(await deps.deliveries.list(identityOf(res), toListDeliveriesCommand(req.query), requestIdOf(res)));
    })
    .all(wrongMethod(['GET']));
  router
    .route('/:id/resend')
    .post(
      auth,
      limit,
      jsonBody({ emptyAs: {} }),
      validate((body) => {
        checkResendBody(body);
        return {};
      }),
      async (req, res) => {
        const delivery = await deps.deliveries.resend(identityOf(res), toDeliveryId(req.params.id), requestIdOf(res));
        // 202: the new series is scheduled, not yet delivered.
        res.status(202).json(delivery);
      },
    )
    .all(wrongMethod(['POST']));
  return router;
}
