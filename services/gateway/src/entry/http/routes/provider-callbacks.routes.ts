import { Router } from 'express';
import { isAppError, notFound, unauthorized, unsupportedMediaType } from '@pl/errors';
import { parseCallbackBody } from '../../../domain/checkout-commands';
import type { HttpDeps } from '../deps';
import { requestIdOf } from '../context';
import { isJsonMediaType, rawBodyOf } from '../middlewares/json-body';
import { wrongMethod } from '../middlewares/not-found';

/** The answer a provider gets for every accepted callback, new or repeated. */
const RECEIVED = { received: true } as const;

/**
 * `POST /callbacks/v1/{provider}`: a payment provider's verdict. The signature is checked over the
 * raw bytes before anything reads them (401 otherwise); then links settles the payment. Providers
 * retry until they get a 2xx, so a verdict for a link that is no longer pending (links: 409 not_pending)
 * is answered 200 too: a repeat changes nothing, and a late payment (money for a link that expired, was
 * canceled or failed) is recorded by links before it answers, so the provider need not retry either.
 */
export function providerCallbackRoutes(deps: HttpDeps): Router {
  const router = Router();
  router
    .route('/:provider')
    .post(async (req, res) => {
      const provider = deps.providers.find(req.params.provider);
      if (!provider) throw notFound('Unknown payment provider');
      const raw = await rawBodyOf(req, res);
      if (!provider.verify(raw, (name) => req.get(name))) throw unauthorized('Missing or invalid provider signature');
      const contentType = req.get('content-type');
      if (contentType === undefined || !isJsonMediaType(contentType)) throw unsupportedMediaType();
      const body = parseCallbackBody(raw);
      try {
        await deps.links.settle({ provider: provider.name, gateway_payment_id: body.gateway_payment_id, status: body.status }, requestIdOf(res));
      } catch (e) {
        if (!(isAppError(e) && e.code === 'payment_link.err.not_pending')) throw e;
        deps.log.info(
          { provider: provider.name, request_id: requestIdOf(res) },
          'callback for a link no longer pending: a repeat, or a late payment links recorded',
        );
      }
      res.json(RECEIVED);
    })
    .all(wrongMethod(['POST']));
  return router;
}
