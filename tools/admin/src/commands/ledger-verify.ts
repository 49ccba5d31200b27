import type { LedgerVerification } from '@pl/contracts';
import type { Command } from '../command';
import { parseFlags } from '../flags';
import { z } from 'zod';

/**
 * `ledger:verify` -> `{ "transactions", "unbalanced", "balances_mismatched" }`, exiting 1 unless both counts are 0
 * (docs/money.md, "The ledger"): the ledger checked from its entries alone, the proof that nothing slipped past the
 * database's own rules. The fault, soak and property tests end with it.
 */
export const ledgerVerify: Command = {
  summary: 'check the ledger: every transaction balanced, every stored shop balance equal to its entries',
  help: `Usage: ledger:verify

Counts the ledger's transactions, those whose entries do not sum to zero (or are fewer than two),
and the shop accounts whose stored balance differs from the sum of their entries, in both modes.

Prints {"transactions": N, "unbalanced": N, "balances_mismatched": N} and exits 1 unless both
unbalanced and balances_mismatched are 0.`,
  async run(args, ctx) {
    parseFlags(args, {}, z.strictObject({}));
    return ctx.ledger().verify();
  },
  exitCode: (result) => {
    const counts = result as LedgerVerification;
    return counts.unbalanced === 0 && counts.balances_mismatched === 0 ? 0 : 1;
  },
};
