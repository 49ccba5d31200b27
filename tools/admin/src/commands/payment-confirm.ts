import { z } from 'zod';
import { subjects, type Identity } from '@pl/contracts';
import type { Command } from '../command';
import { parseFlags, uuidFlag } from '../flags';

const flags = z.strictObject({
  link: uuidFlag('a payment link'),
  status: z.enum(['paid', 'failed']).default('paid'),
});

const ADMIN_IDENTITY: Identity = { kind: 'service', service: 'admin' };

/** The sandbox provider names a link's payment `sbx_<link id>` (the links service derives the link back). */
const sandboxPaymentId = (linkId: string): string => `sbx_${linkId}`;

/**
 * `payment:confirm --link ID [--status paid|failed]` -> the link after the move. It takes the path a
 * sandbox provider callback takes (links.settle), so a confirmed payment gets its outbox event and
 * webhook like any other; a link that is not pending is links' 409 and nothing changes.
 */
export const paymentConfirm: Command = {
  summary: 'settle a pending sandbox payment (through the links service, webhook included)',
  help: `Usage: payment:confirm --link ID [--status paid|failed]

Moves a pending link as a sandbox provider callback would, through the links service over NATS (so the
payment gets its event and webhook). A link that is not pending fails with 409 and nothing changes.

  --link ID      the payment link's id (UUID)
  --status S     paid (default) | failed

Prints the link after the move. Needs NATS_URL and IDENTITY_TOKEN_SECRET like the services.`,
  async run(args, ctx) {
    const f = parseFlags(args, { link: { type: 'string' }, status: { type: 'string' } }, flags);
    const bus = await ctx.bus();
    return bus.request(
      subjects.linksSettle,
      { provider: 'sandbox', gateway_payment_id: sandboxPaymentId(f.link.toLowerCase()), status: f.status },
      ADMIN_IDENTITY,
    );
  },
};
