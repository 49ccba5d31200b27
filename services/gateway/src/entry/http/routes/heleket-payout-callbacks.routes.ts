import { Router, type Request, type Response } from 'express';
import { isAppError, notFound, unsupportedMediaType } from '@pl/errors';
import { errorReply, type CallbackRefusal, type CallbackReply, type HeleketPayouts, type PayoutState } from '@pl/providers';
import type { HttpDeps } from '../deps';
import { requestIdOf } from '../context';
import { isJsonMediaType, rawBodyOf } from '../middlewares/json-body';
import { wrongMethod } from '../middlewares/not-found';

/** The payout webhooks are Heleket's: counted and logged under its name, beside its payment callbacks. */
const PROVIDER = 'heleket';

const send = (res: Response, reply: CallbackReply): void => {
  res.status(reply.status).type(reply.contentType).send(reply.body);
};

/** A refused webhook: counted by reason, logged without its body (it may be a forgery). */
function refuse(deps: HttpDeps, req: Request, res: Response, reason: CallbackRefusal, reply: CallbackReply): void {
  deps.callbacks.refused(PROVIDER, reason);
  deps.log.warn(
    { provider: PROVIDER, kind: 'payout', reason, sender: deps.callbackSender(req), bytes: req.get('content-length'), request_id: requestIdOf(res) },
    'provider callback refused',
  );
  send(res, reply);
}

/**
 * Hands a verified payout webhook to links. A payout the platform never sent to Heleket (an order id not ours, or no
 * such payout on the Heleket rail) changes nothing and is answered 200, counted and logged, as a payment's is: Heleket
 * would retry a refusal. A word that contradicts the payout's final state (a `fail` after `paid`) is not applied; it
 * is logged for an operator and answered 200 too (Heleket's statuses are final; status sync reads the payout anyway).
 */
async function settle(deps: HttpDeps, res: Response, state: PayoutState): Promise<void> {
  const requestId = requestIdOf(res);
  const unknown = () => {
    deps.callbacks.unknown(PROVIDER);
    deps.log.warn(
      { provider: PROVIDER, kind: 'payout', request_id: requestId },
      'verified payout webhook for a payout the platform never sent: answered 200, nothing changed',
    );
  };
  if (state.payoutId === null) {
    unknown();
    return;
  }
  try {
    const payout = await deps.links.settleHeleketPayout(
      {
        payout_id: state.payoutId,
        provider_payout_id: state.providerPayoutId.slice(0, 200),
        status: state.status,
        provider_status: state.providerStatus.slice(0, 64),
        failure_reason: state.failureReason?.slice(0, 500) ?? null,
      },
      requestId,
    );
    const expected = state.status === 'processing' ? null : state.status;
    if (expected !== null && payout.status !== expected) {
      deps.log.warn(
        {
          provider: PROVIDER,
          kind: 'payout',
          payout_id: payout.id,
          status: payout.status,
          provider_status: state.providerStatus,
          request_id: requestId,
        },
        "payout webhook contradicts the payout's state: not applied",
      );
    }
  } catch (e) {
    if (!(isAppError(e) && e.code === 'common.err.not_found')) throw e;
    unknown();
  }
}

/**
 * `POST /callbacks/v1/heleket-payouts`: Heleket's payout webhooks (docs/payouts.md, "How a payout is paid"; ADR 0044).
 * As the payment callbacks: the raw body (at most 64 KiB) is read once and given whole, with the headers and the
 * sender resolved through TRUSTED_PROXIES, to `verifyPayoutCallback` (HELEKET_CALLBACK_IPS, then `sign` with the
 * payout key); nothing else reads it. Refused: 401 (signature, sender), 400 (not a payout webhook of a documented
 * status), 415 (not JSON, after the signature). Verified: links applies it (`paid` → paid, `fail`, `cancel`,
 * `system_fail` → failed, each once) and Heleket hears 200 `{"received":true}`. Replays are harmless: every move is
 * idempotent and a final payout never moves back. 404 when this gateway has no Heleket payout credentials.
 */
export function heleketPayoutCallbackRoutes(deps: HttpDeps): Router {
  const router = Router();
  router
    .route('/')
    .post(async (req, res) => {
      const heleket: HeleketPayouts | null = deps.heleketPayouts;
      if (heleket === null) throw notFound('Unknown payment provider');
      const rawBody = await rawBodyOf(req, res);
      const verdict = heleket.verifyPayoutCallback({ rawBody, header: (name) => req.get(name), remoteAddress: deps.callbackSender(req) });
      const contentType = req.get('content-type');
      if (!verdict.ok && verdict.reason !== 'malformed') {
        refuse(deps, req, res, verdict.reason, verdict.reply);
      } else if (contentType === undefined || !isJsonMediaType(contentType)) {
        refuse(deps, req, res, 'malformed', errorReply(unsupportedMediaType()));
      } else if (!verdict.ok) {
        refuse(deps, req, res, verdict.reason, verdict.reply);
      } else {
        await settle(deps, res, verdict.state);
        deps.callbacks.verified(PROVIDER);
        send(res, verdict.reply);
      }
    })
    .all(wrongMethod(['POST']));
  return router;
}
