import type { BusServer } from '@pl/bus';
import { modeOfLivemode, subjects, type Refund } from '@pl/contracts';
import type { RefundDeps } from '../../domain/refund';
import { createRefund } from '../../domain/refund-create';
import { getRefund, listRefunds } from '../../domain/refund-read';
import { settleRefund, simulateRefund } from '../../domain/refund-settle';
import { toRefund } from '../../domain/refund-view';
import { inLinkMode } from './link-span';

const modeOfRefund = (refund: Refund) => modeOfLivemode(refund.livemode);

/** The refund subjects (docs/money.md, "Refunds"): the bus has already verified the identity token and parsed the payload. */
export function registerRefundHandlers(server: BusServer, deps: RefundDeps): void {
  server.handle(subjects.refundsCreate, (command, ctx) =>
    inLinkMode(
      ctx,
      async () => {
        const { refund, replayed } = await createRefund(deps, ctx.identity, command);
        return { refund: toRefund(refund), replayed };
      },
      (reply) => modeOfRefund(reply.refund),
    ),
  );
  server.handle(subjects.refundsGet, ({ id }, ctx) => inLinkMode(ctx, async () => toRefund(await getRefund(deps, ctx.identity, id)), modeOfRefund));
  server.handle(subjects.refundsList, (command, ctx) => inLinkMode(ctx, () => listRefunds(deps, ctx.identity, command)));
  server.handle(subjects.refundsSettle, (command, ctx) =>
    inLinkMode(ctx, async () => toRefund(await settleRefund(deps, ctx.identity, command)), modeOfRefund),
  );
  server.handle(subjects.refundsSimulate, (command, ctx) =>
    inLinkMode(ctx, async () => toRefund(await simulateRefund(deps, ctx.identity, command)), modeOfRefund),
  );
}
