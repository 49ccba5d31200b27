import { z } from 'zod';
import { payoutStatus } from '@pl/contracts';
import { notFound } from '@pl/errors';
import { toPayout } from '@pl/links';
import type { Command } from '../command';
import { parseFlags, uuidFlag } from '../flags';

const merchantFlags = z.strictObject({ merchant: uuidFlag('an account') });

/** `payout:hold` and `payout:release`: one account's payouts stopped or resumed (docs/payouts.md, "Operators"). */
const holdCommand = (onHold: boolean): Command => ({
  summary: onHold ? "stop an account's payouts (new ones are refused with payout.err.on_hold)" : "resume an account's payouts",
  help: `Usage: payout:${onHold ? 'hold' : 'release'} --merchant ID

${onHold ? 'Stops' : 'Resumes'} the payouts of the account (merchant) ID: while held, every new payout is refused with
422 payout.err.on_hold; payouts already made go on. Prints {"merchant_id": ID, "payouts_on_hold": ${String(onHold)}}.`,
  async run(args, ctx) {
    const f = parseFlags(args, { merchant: { type: 'string' } }, merchantFlags);
    if (!(await ctx.setPayoutHold(f.merchant, onHold))) throw notFound('No account has this id');
    return { merchant_id: f.merchant, payouts_on_hold: onHold };
  },
});

export const payoutHold = holdCommand(true);
export const payoutRelease = holdCommand(false);

const listFlags = z.strictObject({
  merchant: uuidFlag('an account').optional(),
  status: payoutStatus.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/** `payout:list [--merchant ID] [--status S] [--limit N]` -> `{ "payouts": [...] }`, newest first, of both modes. */
export const payoutList: Command = {
  summary: 'list payouts, newest first, of every account or one',
  help: `Usage: payout:list [--merchant ID] [--status pending_approval|approved|processing|paid|failed|canceled|rejected] [--limit N]

Lists payouts of both modes, newest first (at most --limit, 100 by default), each the API's payout object with its
merchant_id and rail. Prints {"payouts": [...]}.`,
  async run(args, ctx) {
    const f = parseFlags(args, { merchant: { type: 'string' }, status: { type: 'string' }, limit: { type: 'string' } }, listFlags);
    const found = await ctx.payouts().listAll(f.merchant ?? null, f.status ?? null, f.limit);
    return { payouts: found.map((p) => ({ ...toPayout(p), merchant_id: p.merchantId, rail: p.rail })) };
  },
};
