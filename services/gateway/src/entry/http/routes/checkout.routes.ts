import { Router } from 'express';
import { simulatePaymentBody } from '@pl/contracts';
import { selectMethodInput, toSelectCommand, toSimulateCommand } from '../../../domain/checkout-commands';
import type { HttpDeps } from '../deps';
import { requestIdOf } from '../context';
import { limitSelectByIp } from '../middlewares/rate-limit';
import { wrongMethod } from '../middlewares/not-found';
import { route } from '../route';

/**
 * `/p/{id}/...`: the buyer's checkout. No credentials: knowing the link id is the capability, so the
 * gateway forwards with its own service identity and links answers only the buyer-safe view.
 */
export function checkoutRoutes(deps: HttpDeps): Router {
  const router = Router();
  router
    .route('/:id/select')
    .post(
      limitSelectByIp(deps.rateLimits),
      route({
        body: selectMethodInput,
        handle: async ({ req, res, body }) => {
          const view = await deps.links.select(toSelectCommand(req.params.id, body), requestIdOf(res));
          // The view carries a deposit address and amounts for this buyer only: no shared caches.
          res.set('Cache-Control', 'no-store');
          res.json(view);
        },
      }),
    )
    .all(wrongMethod(['POST']));
  // The test checkout's buttons: links settles a test link as a provider callback would, and refuses a live one.
  // Every call writes the link, so it shares the select budget per client IP.
  router
    .route('/:id/simulate')
    .post(
      limitSelectByIp(deps.rateLimits),
      route({
        body: simulatePaymentBody,
        handle: async ({ req, res, body }) => {
          const view = await deps.links.simulate(toSimulateCommand(req.params.id, body), requestIdOf(res));
          res.set('Cache-Control', 'no-store');
          res.json(view);
        },
      }),
    )
    .all(wrongMethod(['POST']));
  return router;
}
