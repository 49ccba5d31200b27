import { Router, type RequestHandler } from 'express';
import { listEventsInput, toEventId } from '../../../domain/event-commands';
import { identityOf, requestIdOf } from '../context';
import type { HttpDeps } from '../deps';
import { authenticateApiKey } from '../middlewares/authenticate-api-key';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

/**
 * Every event of the caller's shops, subscribed or not (docs/webhooks.md, "Event types"), behind whichever authentication
 * its mount point takes; the notifier keeps to the caller's shops and mode.
 */
function eventRoutes(deps: HttpDeps, authenticate: RequestHandler): Router {
  const router = Router();
  const caller = [authenticate, limitByCredential(deps.rateLimits)];
  router
    .route('/')
    .get(
      chain(
        ...caller,
        allow('read'),
        route({
          query: listEventsInput,
          handle: async ({ res, query }) => {
            res.json(await deps.deliveries.events(identityOf(res), query, requestIdOf(res)));
          },
        }),
      ),
    )
    .all(wrongMethod(['GET']));
  router
    .route('/:event_id')
    .get(
      chain(...caller, allow('read'), async (req, res) => {
        res.json(await deps.deliveries.event(identityOf(res), toEventId(req.params.event_id), requestIdOf(res)));
      }),
    )
    .all(wrongMethod(['GET']));
  return router;
}

/** `/merchant/v1/events`, account API keys. */
export const merchantEventsRoutes = (deps: HttpDeps): Router => eventRoutes(deps, authenticateApiKey(deps.apiKeys, deps.rateLimits));

/** `/api/v1/events`, the dashboard session. */
export const sessionEventsRoutes = (deps: HttpDeps): Router => eventRoutes(deps, authenticateSession(deps));
