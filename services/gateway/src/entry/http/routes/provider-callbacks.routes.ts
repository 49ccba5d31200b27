import { Router, type Request, type Response } from 'express';
import { isAppError, notFound, unsupportedMediaType } from '@pl/errors';
import { errorReply, type CallbackEvent, type CallbackReply, type CallbackRefusal, type PaymentProvider, type PaymentState } from '@pl/providers';
import type { HttpDeps } from '../deps';
import { requestIdOf } from '../context';
import { isJsonMediaType, rawBodyOf } from '../middlewares/json-body';
import { wrongMethod } from '../middlewares/not-found';

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

/** A status that leaves the link pending: what remains to send and what arrived, which the checkout shows. */
const progressOf = (state: PaymentState) =>
  state.status === 'confirming' || state.status === 'partially_paid' || state.status === 'unpaid'
    ? {
        remaining_crypto_amount: state.remainingCryptoAmount?.slice(0, 64) ?? null,
        arrived_crypto_amount: state.arrivedCryptoAmount?.slice(0, 64) ?? null,
      }
    : {};

/** What arrived, where the provider says (links values an unresolved payment by it); absent when it says nothing. */
const arrivedOf = (state: PaymentState) => ({
  ...(state.arrivedKopecks !== null ? { arrived_kopecks: state.arrivedKopecks } : {}),
  ...(state.arrivedCryptoAmount !== null ? { arrived_crypto_amount: state.arrivedCryptoAmount.slice(0, 64) } : {}),
});

/** Hands a verified callback's event to links: a payment's state to `links.settle`, a refund's to `links.refunds.settle`. */
function settleEvent(deps: HttpDeps, res: Response, provider: PaymentProvider, event: CallbackEvent): Promise<void> {
  if (event.kind === 'payment') {
    const { state } = event;
    return settleOnce(
      deps,
      res,
      provider.name,
      'payment_link.err.not_pending',
      'callback for a link no longer pending: a repeat, or a late payment links recorded',
      () =>
        deps.links.settle(
          {
            provider: provider.name,
            gateway_payment_id: state.gatewayPaymentId,
            order_id: state.orderId,
            status: state.status,
            // Every status, final ones too: the attempt keeps the provider's own last word (`fail`, `SUCCESS`).
            provider_status: state.providerStatus.slice(0, 200),
            ...progressOf(state),
            ...arrivedOf(state),
          },
          requestIdOf(res),
        ),
    );
  }
  const { state } = event;
  // Only a refund's final word settles it; a refund still pending at its provider changes nothing here.
  if (state.status === 'pending') return Promise.resolve();
  const status = state.status;
  return settleOnce(deps, res, provider.name, 'refund.err.not_pending', 'callback for a refund already final: a repeat', () =>
    deps.links.settleRefund(
      {
        provider: provider.name,
        gateway_refund_id: state.gatewayRefundId,
        refund_id: null,
        status,
        // As status sync and the refund's own hand-over say it: the provider's reason, else its word (`refund_fail`).
        failure_reason: status === 'failed' ? (state.failureReason ?? state.providerStatus) : null,
      },
      requestIdOf(res),
    ),
  );
}

/**
 * A verified callback for a payment the platform never made (links: 404; no attempt has its order id, no link its
 * payment id): nothing changes, the provider hears 200 (it would retry a refusal for a day), and an operator hears of
 * it: counted by provider, logged without the body (it may carry buyer data). A refund's is still passed on as 404,
 * so its provider retries: its callback may overtake the commit of the refund id its provider just gave (and status
 * sync completes the refund whatever the provider does).
 */
async function settleKnown(deps: HttpDeps, res: Response, provider: PaymentProvider, event: CallbackEvent): Promise<void> {
  try {
    await settleEvent(deps, res, provider, event);
  } catch (e) {
    if (!(event.kind === 'payment' && isAppError(e) && e.code === 'common.err.not_found')) throw e;
    deps.callbacks.unknown(provider.name);
    deps.log.warn(
      { provider: provider.name, request_id: requestIdOf(res) },
      'verified provider callback for a payment the platform never made: answered 200, nothing changed',
    );
  }
}

const send = (res: Response, reply: CallbackReply): void => {
  res.status(reply.status).type(reply.contentType).send(reply.body);
};

/** A refused callback: counted by provider and reason, logged without its body (it may carry buyer data or a forgery). */
function refuse(deps: HttpDeps, req: Request, res: Response, provider: PaymentProvider, reason: CallbackRefusal, reply: CallbackReply): void {
  deps.callbacks.refused(provider.name, reason);
  deps.log.warn(
    { provider: provider.name, reason, sender: deps.callbackSender(req), bytes: req.get('content-length'), request_id: requestIdOf(res) },
    'provider callback refused',
  );
  send(res, reply);
}

/**
 * `POST /callbacks/v1/{provider}`: a payment provider's word on a payment or a refund. The raw body (at most 64 KiB)
 * is read once and given whole, with the headers and the sender's address (through TRUSTED_PROXIES), to the
 * provider's `verifyCallback`, which checks the signature and the address and parses the body; nothing else reads
 * it. A refused callback changes nothing and gets the provider's refusal (the sandbox's: 401, or 400 for a signed
 * body that is not its shape); a body that is not JSON by its media type is 415, after the signature. Then links
 * settles the payment or the refund. Providers retry until they get a 2xx, so a verdict on something no longer
 * pending (links: 409 not_pending) is answered as accepted too: a repeat changes nothing, and a late payment is
 * recorded by links before it answers, so the provider need not retry either. A verified callback for a payment the
 * platform never made is answered 200 too, changes nothing, and is counted (`provider_callbacks_unknown_total`).
 */
export function providerCallbackRoutes(deps: HttpDeps): Router {
  const router = Router();
  router
    .route('/:provider')
    .post(async (req, res) => {
      const provider = deps.providers.byCallbackPath(req.params.provider);
      if (!provider) throw notFound('Unknown payment provider');
      const rawBody = await rawBodyOf(req, res);
      const verdict = provider.verifyCallback({ rawBody, header: (name) => req.get(name), remoteAddress: deps.callbackSender(req) });
      const contentType = req.get('content-type');
      if (!verdict.ok && verdict.reason !== 'malformed') {
        refuse(deps, req, res, provider, verdict.reason, verdict.reply);
      } else if (contentType === undefined || !isJsonMediaType(contentType)) {
        refuse(deps, req, res, provider, 'malformed', errorReply(unsupportedMediaType()));
      } else if (!verdict.ok) {
        refuse(deps, req, res, provider, verdict.reason, verdict.reply);
      } else {
        await settleKnown(deps, res, provider, verdict.event);
        deps.callbacks.verified(provider.name);
        send(res, verdict.reply);
      }
    })
    .all(wrongMethod(['POST']));
  return router;
}
