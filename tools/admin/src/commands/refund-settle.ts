import { z } from 'zod';
import { REFUND_FAILURE_REASON_MAX_LENGTH, subjects, type Identity } from '@pl/contracts';
import type { Command } from '../command';
import { parseFlags, uuidFlag } from '../flags';

const flags = z
  .strictObject({
    refund: uuidFlag('a refund'),
    status: z.enum(['succeeded', 'failed']),
    reason: z.string().min(1).max(REFUND_FAILURE_REASON_MAX_LENGTH).optional(),
  })
  .refine((f) => f.reason === undefined || f.status === 'failed', { message: 'is only taken with --status failed', path: ['reason'] });

const ADMIN_IDENTITY: Identity = { kind: 'service', service: 'admin' };

/**
 * `refund:settle --refund ID --status succeeded|failed [--reason TEXT]` -> the refund after the move. It takes the
 * path a provider's refund callback takes (links.refunds.settle), so the refund gets its ledger posting and event
 * like any other; repeating the refund's final status changes nothing, the other status is 409.
 */
export const refundSettle: Command = {
  summary: 'settle a pending refund as its provider would (ledger and event included)',
  help: `Usage: refund:settle --refund ID --status succeeded|failed [--reason TEXT]

Settles a pending refund as its provider's callback would, through the links service over NATS (so the
refund gets its ledger posting and its refund.succeeded / refund.failed event). Repeating the refund's
final status changes nothing; the other status for a final refund fails with 409.

  --refund ID    the refund's id (UUID)
  --status S     succeeded | failed
  --reason TEXT  why it failed (with --status failed only)

Prints the refund after the move. Needs NATS_URL and IDENTITY_TOKEN_SECRET like the services.`,
  async run(args, ctx) {
    const f = parseFlags(args, { refund: { type: 'string' }, status: { type: 'string' }, reason: { type: 'string' } }, flags);
    const bus = await ctx.bus();
    return bus.request(
      subjects.refundsSettle,
      { provider: null, gateway_refund_id: null, refund_id: f.refund.toLowerCase(), status: f.status, failure_reason: f.reason ?? null },
      ADMIN_IDENTITY,
    );
  },
};
