import type { BusServer } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { forbidden } from '@pl/errors';
import type { PayoutDestinationRepository } from '../../data/payout-destination.repository';

/**
 * What links' payout scheduler needs of the account (docs/adr/0046): the same facts the session's payout route judges
 * before it asks links for a payout (on hold, approval of every payout, the destination active and the caller's), read
 * where they live. Platform services only: a merchant reads its destinations through the HTTP routes.
 */
export function registerPayoutContextHandler(server: BusServer, destinations: PayoutDestinationRepository): void {
  server.handle(subjects.gatewayPayoutContext, async (req, ctx) => {
    if (ctx.identity.kind !== 'service') throw forbidden('Only platform services read the payout context');
    const [settings, destination] = await Promise.all([
      destinations.payoutSettings(req.merchant_id),
      destinations.find(req.merchant_id, req.mode, req.destination_id.toLowerCase()),
    ]);
    return {
      on_hold: settings.onHold,
      requires_approval: settings.requireApproval,
      destination: destination?.snapshot ?? null,
      destination_active: destination?.active ?? false,
    };
  });
}
