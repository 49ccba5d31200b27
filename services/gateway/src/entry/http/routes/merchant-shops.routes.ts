import { Router } from 'express';
import { listShopsInput, toShopId } from '../../../domain/shop-commands';
import { identityOf, requestIdOf } from '../context';
import type { HttpDeps } from '../deps';
import { authenticateApiKey } from '../middlewares/authenticate-api-key';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

/** `/merchant/v1/shops`: the merchant's shops for server integrations (account API keys), read only. */
export function merchantShopsRoutes(deps: HttpDeps): Router {
  const router = Router();
  const auth = [authenticateApiKey(deps.apiKeys, deps.rateLimits), limitByCredential(deps.rateLimits)];
  router
    .route('/')
    .get(
      chain(
        ...auth,
        route({
          query: listShopsInput,
          handle: async ({ res, query }) => {
            res.json(await deps.shops.list(identityOf(res), query, requestIdOf(res)));
          },
        }),
      ),
    )
    .all(wrongMethod(['GET']));
  router
    .route('/:id')
    .get(
      chain(...auth, async (req, res) => {
        res.json(await deps.shops.read(identityOf(res), toShopId(req.params.id), requestIdOf(res)));
      }),
    )
    .all(wrongMethod(['GET']));
  return router;
}
