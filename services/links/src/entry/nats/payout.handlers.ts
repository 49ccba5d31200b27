import type { BusServer } from '@pl/bus';
import { modeOfLivemode, subjects, type Payout } from '@pl/contracts';
import type { PayoutDeps } from '../../domain/payout';
import { createPayout, getPayout } from '../../domain/payout-create';
import { decidePayout, listPayouts, simulatePayout } from '../../domain/payout-decide';
import { toPayout } from '../../domain/payout-view';
import { nextScheduledPayout, type NextPayoutDeps } from '../../domain/next-payout';
import { inLinkMode } from './link-span';

const modeOfPayout = (payout: Payout) => modeOfLivemode(payout.livemode);

/** The payout subjects (docs/payouts.md): the bus has already verified the identity token and parsed the payload. */
export function registerPayoutHandlers(server: BusServer, deps: PayoutDeps & Pick<NextPayoutDeps, 'ledger' | 'now'>): void {
  server.handle(subjects.payoutsCreate, (command, ctx) =>
    inLinkMode(
      ctx,
      async () => {
        const { payout, replayed } = await createPayout(deps, ctx.identity, command);
        return { payout: toPayout(payout), replayed };
      },
      (reply) => modeOfPayout(reply.payout),
    ),
  );
  server.handle(subjects.payoutsGet, ({ id }, ctx) => inLinkMode(ctx, async () => toPayout(await getPayout(deps, ctx.identity, id)), modeOfPayout));
  server.handle(subjects.payoutsList, (command, ctx) => inLinkMode(ctx, () => listPayouts(deps, ctx.identity, command)));
  server.handle(subjects.payoutsDecide, (command, ctx) =>
    inLinkMode(ctx, async () => toPayout(await decidePayout(deps, ctx.identity, command)), modeOfPayout),
  );
  server.handle(subjects.payoutsSimulate, ({ id, status }, ctx) =>
    inLinkMode(ctx, async () => toPayout(await simulatePayout(deps, ctx.identity, id, status)), modeOfPayout),
  );
  server.handle(subjects.payoutsNext, (command, ctx) => inLinkMode(ctx, () => nextScheduledPayout(deps, ctx.identity, command)));
}
