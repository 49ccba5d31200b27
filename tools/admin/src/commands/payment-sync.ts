import { z } from 'zod';
import { subjects, type Identity } from '@pl/contracts';
import type { Command } from '../command';
import { parseFlags, uuidFlag } from '../flags';

const flags = z
  .strictObject({ link: uuidFlag('a payment link').optional(), payout: uuidFlag('a payout').optional() })
  .refine((f) => (f.link === undefined) !== (f.payout === undefined), { message: 'give exactly one of --link and --payout' });

const ADMIN_IDENTITY: Identity = { kind: 'service', service: 'admin' };

/**
 * `payment:sync --link ID` -> what reading the link's attempts and pending refunds from their providers found and
 * changed. It asks links over NATS (links.sync): the reads are status sync's own, so a state learned takes the path
 * its callback takes (same checks, same events, applied once), and the CLI never talks to a provider itself.
 */
export const paymentSync: Command = {
  summary: "read a link's attempts and pending refunds, or a crypto payout, from their providers now",
  help: `Usage: payment:sync --link ID
       payment:sync --payout ID

Reads the link's unfinished attempts and its refunds pending at a real provider (Raiffeisen SBP, Heleket)
from their providers now, through the links service over NATS, and applies what they say as their
callbacks would (a payment that arrived pays the link once, with its payment.succeeded event; a refund's
final word settles it). The sandbox's payments are not read.

  --link ID     the payment link's id (UUID)
  --payout ID   a live crypto payout's id (UUID): read from Heleket's payout/info now and completed as its
                webhook would (paid, or failed with the money back); a payout Heleket shows none of, whose
                create never got an answer, is sent again under the same order id

Prints { link_id, attempts: [...], refunds: [...], changed }: for each attempt its order id, provider,
payment id, the provider's status word, its state and its link's status before and after, whether it was
canceled at its provider, whether sync is done with it, and an error when the provider could not be read.
With --payout, prints { id, provider_payout_id, provider_status, status_before, status_after, created, error }.
Needs NATS_URL and IDENTITY_TOKEN_SECRET like the services.`,
  async run(args, ctx) {
    const f = parseFlags(args, { link: { type: 'string' }, payout: { type: 'string' } }, flags);
    const bus = await ctx.bus();
    if (f.payout !== undefined) return bus.request(subjects.payoutsSync, { id: f.payout.toLowerCase() }, ADMIN_IDENTITY);
    return bus.request(subjects.linksSync, { link_id: (f.link ?? '').toLowerCase() }, ADMIN_IDENTITY);
  },
};
