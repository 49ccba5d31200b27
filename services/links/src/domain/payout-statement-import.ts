import { createHash } from 'node:crypto';
import { isAppError } from '@pl/errors';
import type { PayoutRecord } from './payout';
import type { PayoutStatementStore, StatementOperation } from './payout-statement';
import { markPayoutFailed, markPayoutPaid, type PayoutTransitionDeps } from './payout-transitions';
import { LINKS_OWN_MODE } from './ports';

/** Why a line was left for an operator: nothing of it was applied. */
export type UnmatchedReason =
  | 'names_no_payout'
  | 'names_several_payouts'
  | 'unknown_payout'
  /** A test payout, or one of another rail: the bank cannot have paid it. */
  | 'not_a_bank_payout'
  | 'amount_mismatch'
  /** The payout is where this line cannot move it (a debit of a payout already returned, an order never batched...). */
  | 'payout_not_movable'
  /** Another line already paid (or returned) this payout: a second debit may be a double payment; the bank must say. */
  | 'second_line_for_payout';

export interface StatementLineReport {
  direction: 'debit' | 'credit';
  number: string;
  date: string;
  amountKopecks: number;
  purpose: string;
  payoutId: string | null;
  /** `paid` / `failed`: the line moved its payout (or found it already moved there and recorded the line). */
  outcome: 'paid' | 'failed' | 'already_imported' | 'unmatched';
  reason?: UnmatchedReason;
  /** For an operator: the payout's state, the amounts that differ. */
  detail?: string;
}

export interface StatementImportSummary {
  lines: number;
  paid: number;
  failed: number;
  alreadyImported: number;
  unmatched: number;
  reports: StatementLineReport[];
}

export type StatementImportDeps = PayoutTransitionDeps & { statement: PayoutStatementStore };

/** The line's identity: the same line in another statement covering the same day has the same key. */
function statementLineKey(op: StatementOperation): string {
  const identity = [op.direction, op.date, op.number, op.amountKopecks, op.counterparty.account, op.counterparty.bik, op.purpose];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

/** The reason a returned payout carries: the bank's purpose says why. */
const returnReason = (op: StatementOperation): string => `Returned by the bank: ${op.purpose}`;

type Verdict = { outcome: 'paid' | 'failed' | 'already_imported' } | { outcome: 'unmatched'; reason: UnmatchedReason; detail?: string };
const unmatched = (reason: UnmatchedReason, detail?: string): Verdict =>
  detail === undefined ? { outcome: 'unmatched', reason } : { outcome: 'unmatched', reason, detail };

/** Whether the payout may be the one the line names: a live bank payout of the line's amount. */
function mismatch(op: StatementOperation, payout: PayoutRecord | null): Verdict | null {
  if (!payout) return unmatched('unknown_payout');
  if (payout.rail !== 'bank' || !payout.livemode) return unmatched('not_a_bank_payout', `rail ${payout.rail}, ${payout.livemode ? 'live' : 'test'}`);
  if (payout.amount !== op.amountKopecks) return unmatched('amount_mismatch', `the payout is ${payout.amount} kopecks, the line ${op.amountKopecks}`);
  return null;
}

async function applyLine(deps: StatementImportDeps, op: StatementOperation, payoutId: string, fileSha256: string): Promise<Verdict> {
  const lineKey = statementLineKey(op);
  if (await deps.statement.appliedLine(lineKey)) return { outcome: 'already_imported' };
  const payout = await deps.payouts.findById(payoutId, LINKS_OWN_MODE);
  const refused = mismatch(op, payout);
  if (refused || !payout) return refused ?? unmatched('unknown_payout');
  if ((await deps.statement.lineOfPayout(payoutId, op.direction)) !== null) return unmatched('second_line_for_payout');
  try {
    // The move first, then the record: a crash between them leaves a line that, imported again, finds its payout
    // already moved (the moves are idempotent) and is recorded then. The other order could record a line never applied.
    if (op.direction === 'debit') await markPayoutPaid(deps, payoutId);
    else await markPayoutFailed(deps, payoutId, returnReason(op));
  } catch (e) {
    if (isAppError(e) && e.code === 'payout.err.already_final') return unmatched('payout_not_movable', `the payout is ${payout.status}`);
    throw e;
  }
  const recorded = await deps.statement.record({
    lineKey,
    payoutId,
    direction: op.direction,
    documentNumber: op.number,
    documentDate: op.date,
    amount: op.amountKopecks,
    purpose: op.purpose,
    counterpartyAccount: op.counterparty.account,
    fileSha256,
  });
  if (!recorded) return unmatched('second_line_for_payout');
  return { outcome: op.direction === 'debit' ? 'paid' : 'failed' };
}

async function judgeLine(deps: StatementImportDeps, op: StatementOperation, fileSha256: string): Promise<StatementLineReport> {
  const [payoutId, ...others] = op.payoutIds;
  const base = { direction: op.direction, number: op.number, date: op.date, amountKopecks: op.amountKopecks, purpose: op.purpose };
  // A line naming two payouts could pay either: never guessed, so one line never moves two payouts.
  if (payoutId === undefined || others.length > 0) {
    return { ...base, payoutId: null, outcome: 'unmatched', reason: payoutId === undefined ? 'names_no_payout' : 'names_several_payouts' };
  }
  return { ...base, payoutId, ...(await applyLine(deps, op, payoutId, fileSha256)) };
}

/**
 * The bank statement import (docs/payouts.md, "How a payout is paid"): each executed order (a debit naming one bank
 * payout) marks it paid, each return (a credit naming one) marks it failed with the bank's reason, giving the money
 * back even after paid. Every other line is reported and left. Debits go first, so a statement holding a payout's
 * execution and its return ends with the payout failed whatever the order of its lines. Importing a statement again
 * changes nothing: its applied lines are known by their key.
 */
export async function importPayoutStatement(
  deps: StatementImportDeps,
  operations: readonly StatementOperation[],
  fileSha256: string,
): Promise<StatementImportSummary> {
  const ordered = [...operations.filter((op) => op.direction === 'debit'), ...operations.filter((op) => op.direction === 'credit')];
  const reports: StatementLineReport[] = [];
  for (const op of ordered) reports.push(await judgeLine(deps, op, fileSha256));
  const count = (outcome: StatementLineReport['outcome']) => reports.filter((r) => r.outcome === outcome).length;
  return {
    lines: reports.length,
    paid: count('paid'),
    failed: count('failed'),
    alreadyImported: count('already_imported'),
    unmatched: count('unmatched'),
    reports,
  };
}
