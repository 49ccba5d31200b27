import { Router, type RequestHandler } from 'express';
import { refundUnresolvedBody, settleUnresolvedBody } from '@pl/contracts';
import { listUnresolvedInput, toUnresolvedId } from '../../../domain/unresolved-commands';
import { identityOf, requestIdOf } from '../context';
import type { HttpDeps } from '../deps';
import { authenticateApiKey } from '../middlewares/authenticate-api-key';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow, recordStepUpAction, type ExistenceProbe } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { idempotency, pathIdAndBody } from '../middlewares/idempotency';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

/**
 * The unresolved payments' routes (docs/money.md, "Unresolved payments") behind whichever authentication their mount
 * point takes; links checks ownership and mode, and resolves each record once (a second resolve is 409, an AML hold
 * 403). An Idempotency-Key is bound to the record the path names: a retry of a resolve that succeeded gets its answer.
 * A session member reads them with `read_money` and resolves them with `move_money` (domain/roles.ts); keys pass.
 */
function unresolvedRoutes(deps: HttpDeps, authenticate: RequestHandler, idempotencyPrefix: string): Router {
  const router = Router();
  const caller = [authenticate, limitByCredential(deps.rateLimits)];
  // Unresolved payments are money: read as the balance is, resolved as refunds are (a session's role; keys pass).
  const exists: ExistenceProbe = (req, res) => deps.links.getUnresolved(identityOf(res), toUnresolvedId(req.params.id), requestIdOf(res));
  router
    .route('/')
    .get(
      chain(
        ...caller,
        allow('read_money'),
        route({
          query: listUnresolvedInput,
          handle: async ({ res, query }) => {
            res.json(await deps.links.listUnresolved(identityOf(res), query, requestIdOf(res)));
          },
        }),
      ),
    )
    .all(wrongMethod(['GET']));
  router
    .route('/:id')
    .get(
      chain(...caller, allow('read_money', exists), async (req, res) => {
        res.json(await deps.links.getUnresolved(identityOf(res), toUnresolvedId(req.params.id), requestIdOf(res)));
      }),
    )
    .all(wrongMethod(['GET']));
  router
    .route('/:id/settle')
    .post(
      chain(
        ...caller,
        allow('move_money', exists),
        route({
          body: settleUnresolvedBody,
          emptyBodyAs: {},
          idempotency: idempotency(deps.idempotency, `${idempotencyPrefix}-settle`, deps.log, pathIdAndBody),
          handle: async ({ req, res }) => {
            const command = { id: toUnresolvedId(req.params.id), action: 'settle' as const, destination: null };
            const resolved = await deps.links.resolveUnresolved(identityOf(res), command, requestIdOf(res));
            await recordStepUpAction(req, res, deps.audit);
            res.json(resolved);
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/:id/refund')
    .post(
      chain(
        ...caller,
        allow('move_money', exists),
        route({
          body: refundUnresolvedBody,
          emptyBodyAs: {},
          idempotency: idempotency(deps.idempotency, `${idempotencyPrefix}-refund`, deps.log, pathIdAndBody),
          handle: async ({ req, res, body }) => {
            const command = { id: toUnresolvedId(req.params.id), action: 'refund' as const, destination: body.destination ?? null };
            const resolved = await deps.links.resolveUnresolved(identityOf(res), command, requestIdOf(res));
            await recordStepUpAction(req, res, deps.audit);
            res.json(resolved);
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  return router;
}

/** Mounted at `/merchant/v1/unresolved-payments`: for account API keys. */
export const merchantUnresolvedRoutes = (deps: HttpDeps): Router =>
  unresolvedRoutes(deps, authenticateApiKey(deps.apiKeys, deps.rateLimits), 'merchant-v1-unresolved');

/** Mounted at `/api/v1/unresolved-payments`: the same for the dashboard session. */
export const sessionUnresolvedRoutes = (deps: HttpDeps): Router => unresolvedRoutes(deps, authenticateSession(deps), 'api-v1-unresolved');
