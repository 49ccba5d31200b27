import type { BusServer } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { requireService } from '../../domain/access';
import { settleHeleketPayout, syncOneHeleketPayout, type HeleketPayoutDeps } from '../../domain/heleket-payout';
import { toPayout } from '../../domain/payout-view';

/**
 * The Heleket rail's subjects (service identities only): the gateway's verified payout webhooks, and the operator's
 * `payment:sync --payout ID`, read by status sync's own code.
 */
export function registerHeleketPayoutHandlers(server: BusServer, deps: HeleketPayoutDeps): void {
  server.handle(subjects.payoutsSettleHeleket, async (command, ctx) => {
    requireService(ctx.identity);
    const payout = await settleHeleketPayout(deps, command.payout_id, {
      providerPayoutId: command.provider_payout_id,
      status: command.status,
      providerStatus: command.provider_status,
      failureReason: command.failure_reason,
    });
    return toPayout(payout);
  });
  server.handle(subjects.payoutsSync, async ({ id }, ctx) => {
    requireService(ctx.identity);
    return syncOneHeleketPayout(deps, id);
  });
}
