import { Router, type Response } from 'express';
import type { ProviderCallbackBody, ProviderRefundCallbackBody } from '@pl/contracts';
import { isAppError, notFound, unauthorized, unsupportedMediaType } from '@pl/errors';
import { parseProviderCallback } from '../../../domain/provider-callback';
import type { HttpDeps } from '../deps';
import { requestIdOf } from '../context';
import { isJsonMediaType, rawBodyOf } from '../middlewares/json-body';
import { wrongMethod } from '../middlewares/not-found';

/** The answer a provider gets for every accepted callback, new or repeated. */
const RECEIVED = { received: true } as const;

/**
 * Runs a settlement, taking `repeatCode` (the thing is already final) as done: providers retry until they get a
 * 2xx, and a repeat changes nothing.
 */
async function settleOnce(
  deps: HttpDeps,
  res: Response,
  provider: string,
  repeatCode: string,
  why: string,
  settle: () => Promise<unknown>,
): Promise<void> {
  try {
    await settle();
  } catch (e) {
    if (!(isAppError(e) && e.code === repeatCode)) throw e;
    deps.log.info({ provider, request_id: requestIdOf(res) }, why);
  }
}

const settlePayment = (deps: HttpDeps, res: Response, provider: string, body: ProviderCallbackBody): Promise<void> =>
  settleOnce(
    deps,
    res,
    provider,
    'payment_link.err.not_pending',
    'callback for a link no longer pending: a repeat, or a late payment links recorded',
    () => deps.links.settle({ provider, gateway_payment_id: body.gateway_payment_id, status: body.status }, requestIdOf(res)),
  );

const settleRefund = (deps: HttpDeps, res: Response, provider: string, body: ProviderRefundCallbackBody): Promise<void> =>
  settleOnce(deps, res, provider, 'refund.err.not_pending', 'callback for a refund already final: a repeat', () =>
    deps.links.settleRefund(
      { provider, gateway_refund_id: body.gateway_refund_id, refund_id: null, status: body.status, failure_reason: body.failure_reason ?? null },
      requestIdOf(res),
    ),
  );

/**
 * `POST /callbacks/v1/{provider}`: a payment provider's verdict on a payment or a refund. The signature is
 * checked over the raw bytes before anything reads them (401 otherwise); then links settles the payment or the
 * refund. Providers retry until they get a 2xx, so a verdict on something no longer pending (links: 409
 * not_pending) is answered 200 too: a repeat changes nothing, and a late payment (money for a link that expired,
 * was canceled or failed) is recorded by links before it answers, so the provider need not retry either.
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
      const callback = parseProviderCallback(raw);
      if (callback.kind === 'refund') await settleRefund(deps, res, provider.name, callback.body);
      else await settlePayment(deps, res, provider.name, callback.body);
      res.json(RECEIVED);
    })
    .all(wrongMethod(['POST']));
  return router;
}
