import { Router, type Request, type RequestHandler, type Response } from 'express';
import {
  createPayoutBody,
  createPayoutDestinationBody,
  emptyBody,
  listPayoutsQuery,
  rejectPayoutBody,
  simulatePayoutBody,
  uuid,
  type IdempotentPayoutReply,
  type ListPayoutsCommand,
  type PayoutDestinationList,
} from '@pl/contracts';
import { invalidField, notFound, payoutDestinationNotActive, payoutsOnHold, validationFailed } from '@pl/errors';
import { destinationProblems, maskedDestination } from '../../../domain/payout-destination-rules';
import { identityOf, memberOf, requestIdOf } from '../context';
import type { HttpDeps } from '../deps';
import { authenticateApiKey } from '../middlewares/authenticate-api-key';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow, recordStepUpAction } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { idempotency } from '../middlewares/idempotency';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

/** The smallest payout (docs/payouts.md): 100.00; the largest is links' PAYOUT_MAX. */
const PAYOUT_MIN_KOPECKS = 10_000;
const DEFAULT_LIST_LIMIT = 20;

/** A path id that is not a UUID names nothing: not found, as every other id. */
const toId = (id: unknown, what: string): string => {
  if (typeof id !== 'string' || !uuid.safeParse(id).success) throw notFound(`${what} not found`);
  return id.toLowerCase();
};

const listInput = listPayoutsQuery.transform((q): ListPayoutsCommand => ({
  shop_id: q.shop_id ?? null,
  status: q.status ?? null,
  limit: q.limit ?? DEFAULT_LIST_LIMIT,
  cursor: q.cursor ?? null,
}));

function sendPayoutAnswer(res: Response, answer: IdempotentPayoutReply): void {
  if (answer.replayed) res.set('Idempotent-Replayed', 'true');
  res.status(201).json(answer.payout);
}

/** The reads both families share: the account's destinations, payouts and one payout. */
function readRoutes(deps: HttpDeps, router: Router, caller: RequestHandler[]): void {
  const payoutExists = (req: Request, res: Response) => deps.links.getPayout(identityOf(res), toId(req.params.id, 'Payout'), requestIdOf(res));
  router.route('/payout-destinations').get(
    chain(...caller, allow('read_money'), async (_req, res) => {
      const who = identityOf(res);
      const answer: PayoutDestinationList = {
        payout_destinations: (await deps.payoutDestinations.list(who.merchant_id, who.mode)).map((d) => d.view),
      };
      res.json(answer);
    }),
  );
  router.route('/payouts').get(
    chain(
      ...caller,
      allow('read_money'),
      route({
        query: listInput,
        handle: async ({ res, query }) => {
          res.json(await deps.links.listPayouts(identityOf(res), query, requestIdOf(res)));
        },
      }),
    ),
  );
  router
    .route('/payouts/:id')
    .get(
      chain(...caller, allow('read_money', payoutExists), async (req, res) => {
        res.json(await payoutExists(req, res));
      }),
    )
    .all(wrongMethod(['GET']));
}

/** Mounted at `/merchant/v1`: reads with the account's API keys (payouts are made only through a session). */
export function merchantPayoutsRoutes(deps: HttpDeps): Router {
  const router = Router();
  readRoutes(deps, router, [authenticateApiKey(deps.apiKeys, deps.rateLimits), limitByCredential(deps.rateLimits)]);
  router.route('/payout-destinations').all(wrongMethod(['GET']));
  router.route('/payouts').all(wrongMethod(['GET']));
  return router;
}

/**
 * Mounted at `/api/v1`: destinations and payouts for the dashboard session. Creating either and approving need step-up
 * (domain/step-up.ts); the roles are domain/roles.ts' `payouts` and `approve_payouts`.
 */
export function sessionPayoutsRoutes(deps: HttpDeps): Router {
  const router = Router();
  const caller = [authenticateSession(deps), limitByCredential(deps.rateLimits)];
  const payoutId = (req: Request) => toId(req.params.id, 'Payout');
  const payoutExists = (req: Request, res: Response) => deps.links.getPayout(identityOf(res), payoutId(req), requestIdOf(res));
  const destinationExists = async (req: Request, res: Response) => {
    const who = identityOf(res);
    const found = await deps.payoutDestinations.find(who.merchant_id, who.mode, toId(req.params.id, 'Payout destination'));
    if (!found) throw notFound('Payout destination not found');
    return found;
  };

  router.route('/payout-destinations').post(
    chain(
      ...caller,
      allow('payouts'),
      route({
        body: createPayoutDestinationBody,
        handle: async ({ req, res, body }) => {
          const problems = destinationProblems(body);
          if (problems.length > 0) throw validationFailed(`${problems[0]?.field ?? 'input'} ${problems[0]?.message ?? ''}`, problems);
          const who = identityOf(res);
          const created = await deps.payoutDestinations.create(
            { merchantId: who.merchant_id, mode: who.mode, userId: memberOf(res).userId },
            body,
            maskedDestination(body),
          );
          await recordStepUpAction(req, res, deps.audit, created.view.id);
          res.status(201).json(created.view);
        },
      }),
    ),
  );
  router
    .route('/payout-destinations/:id')
    .get(
      chain(...caller, allow('read_money', destinationExists), async (req, res) => {
        res.json((await destinationExists(req, res)).view);
      }),
    )
    .delete(
      chain(...caller, allow('payouts', destinationExists), async (req, res) => {
        const who = identityOf(res);
        await destinationExists(req, res);
        await deps.payoutDestinations.remove(who.merchant_id, who.mode, toId(req.params.id, 'Payout destination'));
        res.status(204).end();
      }),
    );

  router.route('/payouts').post(
    chain(
      ...caller,
      allow('payouts'),
      route({
        body: createPayoutBody,
        idempotency: idempotency(deps.idempotency, 'api-v1-payout', deps.log),
        handle: async ({ req, res, body, idempotencyClaim }) => {
          if (body.amount < PAYOUT_MIN_KOPECKS) throw invalidField('amount', 'must be at least 100.00');
          const who = identityOf(res);
          const settings = await deps.payoutDestinations.payoutSettings(who.merchant_id);
          if (settings.onHold) throw payoutsOnHold();
          const destination = await deps.payoutDestinations.find(who.merchant_id, who.mode, body.destination_id.toLowerCase());
          if (!destination) throw notFound('Payout destination not found');
          if (!destination.active) throw payoutDestinationNotActive(destination.view.active_at);
          const answer = await deps.links.createPayout(
            who,
            {
              shop_id: body.shop_id,
              amount_kopecks: body.amount,
              description: body.description ?? null,
              destination: destination.snapshot,
              created_by: memberOf(res).userId,
              requires_approval: settings.requireApproval,
              ...(idempotencyClaim ? { idempotency: idempotencyClaim } : {}),
            },
            requestIdOf(res),
          );
          if (!answer.replayed) await recordStepUpAction(req, res, deps.audit, answer.payout.id);
          sendPayoutAnswer(res, answer);
        },
      }),
    ),
  );

  const decision = (action: 'approve_payouts' | 'payouts', decide: 'approve' | 'reject' | 'cancel') =>
    chain(
      ...caller,
      allow(action, payoutExists),
      route({
        body: decide === 'reject' ? rejectPayoutBody : emptyBody,
        ...(decide === 'reject' ? {} : { emptyBodyAs: {} }),
        handle: async ({ req, res, body }) => {
          const reason = 'reason' in body && typeof body.reason === 'string' ? body.reason : null;
          const decided = await deps.links.decidePayout(
            identityOf(res),
            { id: payoutId(req), decision: decide, user_id: memberOf(res).userId, reason },
            requestIdOf(res),
          );
          // The approve route's step-up entry names its audit event; reject and cancel have none.
          await recordStepUpAction(req, res, deps.audit);
          res.json(decided);
        },
      }),
    );
  router
    .route('/payouts/:id/approve')
    .post(decision('approve_payouts', 'approve'))
    .all(wrongMethod(['POST']));
  router
    .route('/payouts/:id/reject')
    .post(decision('approve_payouts', 'reject'))
    .all(wrongMethod(['POST']));
  router
    .route('/payouts/:id/cancel')
    .post(decision('payouts', 'cancel'))
    .all(wrongMethod(['POST']));
  router
    .route('/payouts/:id/simulate')
    .post(
      chain(
        ...caller,
        allow('payouts', payoutExists),
        route({
          body: simulatePayoutBody,
          // Links answers a live payout as not found: the simulator never moves real money.
          handle: async ({ req, res, body }) => {
            res.json(await deps.links.simulatePayout(identityOf(res), payoutId(req), body.status, requestIdOf(res)));
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));

  readRoutes(deps, router, caller);
  router.route('/payout-destinations').all(wrongMethod(['GET', 'POST']));
  router.route('/payout-destinations/:id').all(wrongMethod(['GET', 'DELETE']));
  router.route('/payouts').all(wrongMethod(['GET', 'POST']));
  return router;
}
