import { Router } from 'express';
import type { SelectMethodCommand } from '@pl/contracts';
import { toSelectCommand } from '../../../domain/checkout-commands';
import type { HttpDeps } from '../deps';
import { commandOf, requestIdOf } from '../context';
import { jsonBody } from '../middlewares/json-body';
import { limitSelectByIp } from '../middlewares/rate-limit';
import { wrongMethod } from '../middlewares/not-found';
import { validate } from '../middlewares/validate';

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
      jsonBody(),
      validate((body, res) => toSelectCommand(res.req.params.id, body)),
      async (_req, res) => {
        const view = await deps.links.select(commandOf<SelectMethodCommand>(res), requestIdOf(res));
        // The view carries a deposit address and amounts for this buyer only: no shared caches.
        res.set('Cache-Control', 'no-store');
        res.json(view);
      },
    )
    .all(wrongMethod(['POST']));
  return router;
}
