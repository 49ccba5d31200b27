import { createHash, randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PAYMENT_EVENTS_TOPIC } from '@pl/contracts';
import { validationFailed } from '@pl/errors';
import { importPayoutStatement, type StatementLineReport } from '@pl/links';
import { formatKopecks } from '@pl/money';
import { ExchangeFileError, parseExchangeFile, statementLines, type ParsedExchangeFile, type StatementLine } from '@pl/payout-rails';
import type { Command } from '../command';
import { flagsInvalid } from '../flags';
import { loadPayoutPayer } from '../payout-payer';

/** A bank statement of years of operations stays well below this; anything larger is not a statement. */
const MAX_STATEMENT_BYTES = 64 * 1024 * 1024;

const fileInvalid = (message: string) => validationFailed(message, [{ field: 'file', code: 'invalid_value', message }]);

/** The one positional argument, FILE; no flags. */
function fileArgument(args: string[]): string {
  let positionals: string[];
  try {
    ({ positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true }));
  } catch (e) {
    const message = e instanceof Error ? e.message : 'Invalid flags';
    throw validationFailed(message, [{ field: '', code: 'invalid_flags', message }]);
  }
  const [file, ...extra] = positionals;
  if (file === undefined || file === '' || extra.length > 0) {
    throw flagsInvalid([{ field: 'file', code: 'invalid_flags', message: 'give exactly one statement file: payout:statement:import FILE' }]);
  }
  return resolve(file);
}

async function readStatement(path: string): Promise<Buffer> {
  const size = await stat(path).then(
    (s) => (s.isFile() ? s.size : -1),
    () => -1,
  );
  if (size < 0) throw fileInvalid(`${path} is not a readable file`);
  if (size > MAX_STATEMENT_BYTES) throw fileInvalid(`${path} is larger than ${MAX_STATEMENT_BYTES} bytes: not a bank statement`);
  return readFile(path);
}

function parseStatement(bytes: Buffer, platformAccount: string): ParsedExchangeFile {
  let parsed: ParsedExchangeFile;
  try {
    parsed = parseExchangeFile(bytes);
  } catch (e) {
    if (e instanceof ExchangeFileError) throw fileInvalid(`The statement cannot be read: ${e.message}`);
    throw e;
  }
  // A statement of another of the company's accounts would match nothing and could look like "nothing happened".
  if (parsed.accounts.length > 0 && !parsed.accounts.some((a) => a.fields['РасчСчет'] === platformAccount)) {
    throw fileInvalid(`The statement does not cover PAYOUT_PAYER_ACCOUNT ${platformAccount}: is it a statement of another account?`);
  }
  return parsed;
}

function operationsOf(parsed: ParsedExchangeFile, platformAccount: string): StatementLine[] {
  try {
    return statementLines(parsed, platformAccount);
  } catch (e) {
    if (e instanceof ExchangeFileError) throw fileInvalid(`The statement cannot be read: ${e.message}`);
    throw e;
  }
}

const lineView = (r: StatementLineReport) => ({
  direction: r.direction,
  number: r.number,
  date: r.date,
  amount: formatKopecks(r.amountKopecks),
  payout_id: r.payoutId,
  outcome: r.outcome,
  ...(r.reason ? { reason: r.reason } : {}),
  ...(r.detail ? { detail: r.detail } : {}),
  purpose: r.purpose,
});

/** `payout:statement:import FILE`: the bank's statement marks its bank payouts paid or failed. */
export const payoutStatementImport: Command = {
  summary: "import the bank's statement (1C format): executed orders mark payouts paid, returns mark them failed",
  help: `Usage: payout:statement:import FILE

Reads the bank's statement of the platform's account (PAYOUT_PAYER_ACCOUNT; the other PAYOUT_PAYER_* are checked too),
a 1CClientBankExchange file in windows-1251 or DOS encoding. Each debit of the account naming one bank payout of its
amount marks it paid; each credit naming one (a return) marks it failed with the bank's purpose as the reason and
gives the money back to the shop, even after paid. Every other line (a fee, a line naming no payout or two, a
payout of another amount, a second debit of a payout already paid) is reported and left for an operator.
Importing a statement again changes nothing (applied lines are known by their date, number, amount, counterparty
and purpose). Prints {"lines", "paid", "failed", "already_imported", "unmatched", "applied": [...], "unmatched_lines": [...]}.`,
  async run(args, ctx, io) {
    const payer = loadPayoutPayer(ctx.env);
    const path = fileArgument(args);
    const bytes = await readStatement(path);
    const parsed = parseStatement(bytes, payer.account);
    const operations = operationsOf(parsed, payer.account);
    const summary = await importPayoutStatement(
      {
        payouts: ctx.payouts(),
        newId: randomUUID,
        eventsTopic: ctx.env.PAYMENT_EVENTS_TOPIC ?? PAYMENT_EVENTS_TOPIC,
        statement: ctx.payoutStatementLines(),
      },
      operations,
      createHash('sha256').update(bytes).digest('hex'),
    );
    if (summary.unmatched > 0) io.warn(`warning: ${summary.unmatched} statement line(s) left unmatched: see unmatched_lines`);
    return {
      file: path,
      lines: summary.lines,
      paid: summary.paid,
      failed: summary.failed,
      already_imported: summary.alreadyImported,
      unmatched: summary.unmatched,
      applied: summary.reports.filter((r) => r.outcome === 'paid' || r.outcome === 'failed').map(lineView),
      unmatched_lines: summary.reports.filter((r) => r.outcome === 'unmatched').map(lineView),
    };
  },
};
