import { z } from 'zod';
import type { Command } from '../command';
import { parseFlags, uuidFlag } from '../flags';

const listFlags = z.strictObject({
  merchant: uuidFlag('an account').optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/**
 * `payout:schedule-runs [--merchant ID] [--limit N]`: what the payout scheduler decided for each shop's period, newest
 * first (docs/adr/0046): the payout it made, or why it made none.
 */
export const payoutScheduleRuns: Command = {
  summary: "list the payout scheduler's decisions, newest first: a payout, or why none",
  help: `Usage: payout:schedule-runs [--merchant ID] [--limit N]

Lists the automatic payouts' periods decided (at most --limit, 100 by default), newest first, of every account or one:
shop, mode, period (the Moscow date it starts on at 10:00), interval, outcome (created, below_minimum, on_hold,
destination_not_active, daily_limit, insufficient_available), the payout made, and the available balance and minimum
the scheduler saw (RUB). Prints {"runs": [...]}.`,
  async run(args, ctx) {
    const f = parseFlags(args, { merchant: { type: 'string' }, limit: { type: 'string' } }, listFlags);
    return { runs: await ctx.payoutScheduleRuns().list(f.merchant ?? null, f.limit) };
  },
};
