import { Router, type RequestHandler } from 'express';
import { emptyBody } from '@pl/contracts';
import { listDeliveriesInput, toDeliveryId } from '../../../domain/checkout-commands';
import type { HttpDeps } from '../deps';
import { identityOf, requestIdOf } from '../context';
import { authenticateApiKey } from '../middlewares/authenticate-api-key';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

/**
 * The merchant's webhook delivery log, behind whichever authentication its mount point takes; the notifier checks
 * that the link, shop or delivery named is the caller's.
 */
function deliveryLogRoutes(deps: HttpDeps, authenticate: RequestHandler): Router {
  const router = Router();
  const caller = [authenticate, limitByCredential(deps.rateLimits)];
  router
    .route('/')
    .get(
      chain(
        ...caller,
        allow('read'),
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
        ...caller,
        allow('operate_links'),
        // Resend takes an empty JSON object (or no body) and nothing else, like cancel.
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

/** `/merchant/v1/webhook-deliveries`: the delivery log for account API keys. */
export const webhookDeliveriesRoutes = (deps: HttpDeps): Router => deliveryLogRoutes(deps, authenticateApiKey(deps.apiKeys, deps.rateLimits));

/** `/api/v1/webhook-deliveries`: the same log for the dashboard session. */
export const sessionDeliveriesRoutes = (deps: HttpDeps): Router => deliveryLogRoutes(deps, authenticateSession(deps));
