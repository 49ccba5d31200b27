import { Router, type Request, type Response } from 'express';
import { emptyBody, reissueCashierKeyBody, setPayoutScheduleBody, updateShopBody, type AuditEventType } from '@pl/contracts';
import { internal, invalidField } from '@pl/errors';
import { parseAmountText } from '@pl/money';
import { createShopInput, listShopsInput, rotateSecretInput, toShopId } from '../../../domain/shop-commands';
import { identityOf, requestIdOf } from '../context';
import type { HttpDeps } from '../deps';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow, recordStepUpAction } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { idempotency, pathIdAndBody, revealsSecret } from '../middlewares/idempotency';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

/**
 * Records a credential change of a shop once the shops service made it. The change has happened and its secret
 * exists only in this response, so a failing audit write is logged and the merchant still gets the secret:
 * withholding it would not undo the change, only force another one.
 */
async function audit(deps: Pick<HttpDeps, 'audit' | 'log'>, req: Request, res: Response, type: AuditEventType, shopId: number): Promise<void> {
  const merchantId = identityOf(res).merchant_id;
  try {
    await deps.audit.record({ merchantId, type, ip: req.ip ?? null, subject: String(shopId) });
  } catch (err) {
    deps.log.error({ err, type, merchantId, shopId, requestId: requestIdOf(res) }, 'could not write the audit event');
  }
}

/**
 * `/api/v1/shops`: the merchant's shops, dashboard session only (a cashier key or an API key pair is 401). The
 * gateway validates what it receives and forwards; the shops service decides ownership (403), existence (404),
 * the confirmed email (403) and the webhook address rule, from the identity token.
 */
export function sessionShopsRoutes(deps: HttpDeps): Router {
  const router = Router();
  const session = [authenticateSession(deps), limitByCredential(deps.rateLimits)];
  // A refused role learns nothing the shops service would not tell it: a missing shop is still 404, another's 403.
  const shopExists = (req: Request, res: Response) => deps.shops.read(identityOf(res), toShopId(req.params.id), requestIdOf(res));
  router
    .route('/')
    .get(
      chain(
        ...session,
        allow('read'),
        route({
          query: listShopsInput,
          handle: async ({ res, query }) => {
            res.json(await deps.shops.list(identityOf(res), query, requestIdOf(res)));
          },
        }),
      ),
    )
    .post(
      chain(
        ...session,
        allow('integrate'),
        route({
          body: createShopInput,
          // A shop holds no secret, so a replay answers the shop the first request created, as link creates do.
          idempotency: idempotency(deps.idempotency, 'api-v1-shops-create', deps.log),
          handle: async ({ res, body }) => {
            res.status(201).json(await deps.shops.create(identityOf(res), body, requestIdOf(res)));
          },
        }),
      ),
    )
    .all(wrongMethod(['GET', 'POST']));
  router
    .route('/:id')
    .get(
      chain(...session, allow('read'), async (req, res) => {
        res.json(await deps.shops.read(identityOf(res), toShopId(req.params.id), requestIdOf(res)));
      }),
    )
    .patch(
      chain(
        ...session,
        allow('integrate', shopExists),
        route({
          // `{}` changes nothing and answers the shop as it is (200): a merge patch with no members is a no-op, and
          // the shops service still checks the shop is the merchant's, so it reads like a GET that needs a body.
          body: updateShopBody,
          handle: async ({ req, res, body }) => {
            res.json(await deps.shops.update(identityOf(res), { ...body, shop_id: toShopId(req.params.id) }, requestIdOf(res)));
          },
        }),
      ),
    )
    .all(wrongMethod(['GET', 'PATCH']));
  router
    .route('/:id/payout-schedule')
    .put(
      chain(
        ...session,
        // Who may make payouts may schedule them, with step-up: a schedule sends money out on its own (docs/adr/0046).
        allow('payouts', shopExists),
        route({
          body: setPayoutScheduleBody,
          handle: async ({ req, res, body }) => {
            const who = identityOf(res);
            const destinationId = body.destination_id?.toLowerCase() ?? null;
            // The destination must be the account's, of the session's mode, and not deleted; pending (in its
            // cool-down) is allowed: the scheduler skips a period whose 10:00 comes before it is active.
            if (body.interval !== 'manual' && destinationId !== null) {
              const destination = await deps.payoutDestinations.find(who.merchant_id, who.mode, destinationId);
              if (!destination) throw invalidField('destination_id', 'is not a payout destination of this account in this mode');
            }
            const command = {
              shop_id: toShopId(req.params.id),
              interval: body.interval,
              destination_id: body.interval === 'manual' ? null : destinationId,
              minimum_kopecks: body.interval === 'manual' ? null : (body.minimum ?? null),
            };
            const shop = await deps.shops.setPayoutSchedule(who, command, requestIdOf(res));
            await recordStepUpAction(req, res, deps.audit);
            res.json(shop);
          },
        }),
      ),
    )
    .all(wrongMethod(['PUT']));
  router
    .route('/:id/next-payout')
    .get(
      chain(...session, allow('read_money', shopExists), async (req, res) => {
        const who = identityOf(res);
        const shopId = toShopId(req.params.id);
        const { payout_schedule: schedule } = await deps.shops.read(who, shopId, requestIdOf(res));
        if (schedule.interval === 'manual') {
          res.json({ interval: 'manual', scheduled_at: null, amount: null, minimum: null });
          return;
        }
        const minimum = schedule.minimum === null ? null : parseAmountText(schedule.minimum);
        if (minimum === null) throw internal('A scheduled shop without a minimum');
        res.json(await deps.links.nextPayout(who, { shop_id: shopId, interval: schedule.interval, minimum_kopecks: minimum }, requestIdOf(res)));
      }),
    )
    .all(wrongMethod(['GET']));
  router
    .route('/:id/webhook-secret/rotate')
    .post(
      chain(
        ...session,
        allow('integrate', shopExists),
        route({
          body: rotateSecretInput,
          emptyBodyAs: {},
          // The secret is shown once: a replay of a success is 409, never the secret again. The key names the shop.
          idempotency: revealsSecret(deps.idempotency, 'api-v1-shop-rotate-secret', deps.log, pathIdAndBody),
          handle: async ({ req, res, body }) => {
            const shopId = toShopId(req.params.id);
            const rotated = await deps.shops.rotateSecret(identityOf(res), { shop_id: shopId, ...body }, requestIdOf(res));
            await audit(deps, req, res, 'shop.webhook_secret_rotated', shopId);
            res.json(rotated);
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/:id/webhook-test')
    .post(
      chain(
        ...session,
        allow('integrate', shopExists),
        route({
          body: emptyBody,
          emptyBodyAs: {},
          handle: async ({ req, res }) => {
            // 202: the delivery is recorded and scheduled, not yet delivered.
            res.status(202).json(await deps.deliveries.test(identityOf(res), toShopId(req.params.id), requestIdOf(res)));
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/:id/cashier-key/reissue')
    .post(
      chain(
        ...session,
        allow('integrate', shopExists),
        route({
          // Live unless the body names the mode, as a new API key: the key's mode is what the merchant asks for,
          // not the mode the dashboard happens to show.
          body: reissueCashierKeyBody,
          emptyBodyAs: {},
          idempotency: revealsSecret(deps.idempotency, 'api-v1-shop-reissue-cashier-key', deps.log, pathIdAndBody),
          handle: async ({ req, res, body }) => {
            const shopId = toShopId(req.params.id);
            const reissued = await deps.shops.reissueCashierKey(identityOf(res), { shop_id: shopId, mode: body.mode ?? 'live' }, requestIdOf(res));
            await audit(deps, req, res, 'shop.cashier_key_reissued', shopId);
            res.json(reissued);
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  return router;
}
