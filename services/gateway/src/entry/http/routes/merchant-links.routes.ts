import { Router } from 'express';
import type { HttpDeps } from '../deps';
import { authenticateApiKey } from '../middlewares/authenticate-api-key';
import { chain } from '../middlewares/chain';
import { idempotency, linkAndBody } from '../middlewares/idempotency';
import { jsonBody } from '../middlewares/json-body';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { cancelLink, createLink, getLink, listLinks, validateCancel, validateCreate } from './link-handlers';

/** Routes 1, 4, 6, 7: `/merchant/v1/payment-links`, account API keys. */
export function merchantLinksRoutes(deps: HttpDeps): Router {
  const router = Router();
  const auth = [authenticateApiKey(deps.apiKeys, deps.rateLimits), limitByCredential(deps.rateLimits)];
  router
    .route('/')
    .post(
      chain(...auth, jsonBody(), validateCreate('required'), idempotency(deps.idempotency, 'merchant-v1-create', deps.log), createLink(deps.links)),
    )
    .get(chain(...auth, listLinks(deps.links)))
    .all(wrongMethod(['GET', 'POST']));
  router
    .route('/:id')
    .get(chain(...auth, getLink(deps.links)))
    .all(wrongMethod(['GET']));
  router
    .route('/:id/cancel')
    .post(
      chain(
        ...auth,
        jsonBody({ emptyAs: {} }),
        validateCancel,
        idempotency(deps.idempotency, 'merchant-v1-cancel', deps.log, linkAndBody),
        cancelLink(deps.links),
      ),
    )
    .all(wrongMethod(['POST']));
  return router;
}
