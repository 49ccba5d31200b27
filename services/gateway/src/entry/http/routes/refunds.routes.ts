import { Router, type Request, type RequestHandler, type Response } from 'express';
import { paymentLink, simulateRefundBody, type IdempotentRefundReply } from '@pl/contracts';
import { toLinkId } from '../../../domain/link-commands';
import { createRefundInput, listRefundsInput, toRefundId } from '../../../domain/refund-commands';
import { identityOf, requestIdOf } from '../context';
import type { HttpDeps } from '../deps';
import { authenticateApiKey } from '../middlewares/authenticate-api-key';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow, assertSteppedUp, recordStepUpAction } from '../middlewares/authorize';
import { parseAmountText } from '@pl/money';
import { STEP_UP_REFUND_OVER_KOPECKS } from '../../../domain/step-up';
import { secondFactorOf } from '../context';
import { chain } from '../middlewares/chain';
import { idempotency, pathIdAndBody } from '../middlewares/idempotency';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

/** The links service's kept refund is marked as the gateway cache's replays are. */
function sendRefundAnswer(res: Response, answer: IdempotentRefundReply): void {
  if (answer.replayed) res.set('Idempotent-Replayed', 'true');
  res.status(201).json(answer.refund);
}

/**
 * `POST …/payment-links/{id}/refunds`. The body first (400), then the path (a non-UUID is 404); links decides the
 * rest in the order of docs/product-decisions.md. No body refunds all that is refundable. An Idempotency-Key is bound to the
 * link the path names, and its claim travels to links, which keeps it with the refund it made.
 */
const createRefund = (deps: HttpDeps, idempotencyRoute: string): RequestHandler =>
  route({
    body: createRefundInput,
    emptyBodyAs: {},
    idempotency: idempotency(deps.idempotency, idempotencyRoute, deps.log, pathIdAndBody),
    handle: async ({ req, res, body, idempotencyClaim }) => {
      const overLimit = await refundOverStepUpLimit(deps, req, res, body.amount_kopecks);
      if (overLimit) assertSteppedUp(res);
      const command = { ...body, payment_link_id: toLinkId(req.params.id), ...(idempotencyClaim ? { idempotency: idempotencyClaim } : {}) };
      const answer = await deps.links.createRefund(identityOf(res), command, requestIdOf(res));
      if (overLimit && !answer.replayed) await recordStepUpAction(req, res, deps.audit);
      sendRefundAnswer(res, answer);
    },
  });

/**
 * Whether a session's refund is over the step-up limit (10,000.00 RUB; domain/step-up.ts): the amount asked, or, for
 * a refund of all that is left, the link's amount less what was refunded. API keys never step up: no read for them.
 */
async function refundOverStepUpLimit(deps: HttpDeps, req: Request, res: Response, amount: number | null): Promise<boolean> {
  if (!secondFactorOf(res)) return false;
  if (amount !== null) return amount > STEP_UP_REFUND_OVER_KOPECKS;
  const link = paymentLink
    .pick({ amount: true, amount_refunded: true })
    .parse(JSON.parse((await deps.links.get(identityOf(res), toLinkId(req.params.id), requestIdOf(res))).toString('utf8')));
  const left = (parseAmountText(link.amount) ?? 0) - (parseAmountText(link.amount_refunded) ?? 0);
  return left > STEP_UP_REFUND_OVER_KOPECKS;
}

/** The refund routes behind whichever authentication their mount point takes; links checks ownership and mode. */
function refundRoutes(deps: HttpDeps, authenticate: RequestHandler, idempotencyRoute: string): Router {
  const router = Router();
  const caller = [authenticate, limitByCredential(deps.rateLimits)];
  const linkExists = (req: Request, res: Response) => deps.links.get(identityOf(res), toLinkId(req.params.id), requestIdOf(res));
  const refundExists = (req: Request, res: Response) => deps.links.getRefund(identityOf(res), toRefundId(req.params.id), requestIdOf(res));
  router
    .route('/payment-links/:id/refunds')
    .post(chain(...caller, allow('move_money', linkExists), createRefund(deps, idempotencyRoute)))
    .all(wrongMethod(['POST']));
  router
    .route('/refunds')
    .get(
      chain(
        ...caller,
        allow('read_money'),
        route({
          query: listRefundsInput,
          handle: async ({ res, query }) => {
            res.json(await deps.links.listRefunds(identityOf(res), query, requestIdOf(res)));
          },
        }),
      ),
    )
    .all(wrongMethod(['GET']));
  router
    .route('/refunds/:id')
    .get(
      chain(...caller, allow('read_money', refundExists), async (req, res) => {
        res.json(await deps.links.getRefund(identityOf(res), toRefundId(req.params.id), requestIdOf(res)));
      }),
    )
    .all(wrongMethod(['GET']));
  return router;
}

/** Mounted at `/merchant/v1`: refunds for account API keys. */
export const merchantRefundsRoutes = (deps: HttpDeps): Router =>
  refundRoutes(deps, authenticateApiKey(deps.apiKeys, deps.rateLimits), 'merchant-v1-refund');

/** Mounted at `/api/v1`: the same for the dashboard session, and the test-mode simulator of a refund's outcome. */
export function sessionRefundsRoutes(deps: HttpDeps): Router {
  const router = refundRoutes(deps, authenticateSession(deps), 'api-v1-refund');
  router
    .route('/refunds/:id/simulate')
    .post(
      chain(
        authenticateSession(deps),
        limitByCredential(deps.rateLimits),
        allow('move_money', (req, res) => deps.links.getRefund(identityOf(res), toRefundId(req.params.id), requestIdOf(res))),
        route({
          body: simulateRefundBody,
          // Links answers a live refund as not found: the simulator never settles real money.
          handle: async ({ req, res, body }) => {
            res.json(await deps.links.simulateRefund(identityOf(res), toRefundId(req.params.id), body.status, requestIdOf(res)));
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  return router;
}
