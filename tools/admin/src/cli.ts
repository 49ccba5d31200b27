import { AppError, isAppError, validationFailed, type WireError } from '@pl/errors';
import type { Command } from './command';
import { deliveriesList } from './commands/deliveries-list';
import { ledgerVerify } from './commands/ledger-verify';
import { linkShow } from './commands/link-show';
import { merchantCreate } from './commands/merchant-create';
import { merchantList } from './commands/merchant-list';
import { paymentConfirm } from './commands/payment-confirm';
import { paymentLate } from './commands/payment-late';
import { paymentLateResolve } from './commands/payment-late-resolve';
import { paymentSync } from './commands/payment-sync';
import { payoutBatchCreate, payoutBatchExport, payoutBatchList, payoutBatchSent } from './commands/payout-batch';
import { payoutStatementImport } from './commands/payout-statement';
import { payoutHold, payoutList, payoutRelease } from './commands/payouts';
import { payoutScheduleRuns } from './commands/payout-schedule-runs';
import { refundSettle } from './commands/refund-settle';
import { shopCreate } from './commands/shop-create';
import { shopList } from './commands/shop-list';
import { shopShow } from './commands/shop-show';
import { shopUpdate } from './commands/shop-update';
import { unresolvedList } from './commands/unresolved-list';
import { unresolvedResolve } from './commands/unresolved-resolve';
import { loadAdminConfig } from './config';
import { AdminContext } from './context';
import type { CliIo } from './secrets';

const COMMANDS: Readonly<Record<string, Command>> = {
  'merchant:create': merchantCreate,
  'merchant:list': merchantList,
  'shop:create': shopCreate,
  'shop:update': shopUpdate,
  'shop:list': shopList,
  'shop:show': shopShow,
  'link:show': linkShow,
  'deliveries:list': deliveriesList,
  'payment:confirm': paymentConfirm,
  'payment:late': paymentLate,
  'payment:late:resolve': paymentLateResolve,
  'ledger:verify': ledgerVerify,
  'refund:settle': refundSettle,
  'payment:sync': paymentSync,
  'unresolved:list': unresolvedList,
  'unresolved:resolve': unresolvedResolve,
  'payout:hold': payoutHold,
  'payout:release': payoutRelease,
  'payout:list': payoutList,
  'payout:batch:create': payoutBatchCreate,
  'payout:batch:export': payoutBatchExport,
  'payout:batch:sent': payoutBatchSent,
  'payout:batch:list': payoutBatchList,
  'payout:statement:import': payoutStatementImport,
  'payout:schedule-runs': payoutScheduleRuns,
};

const HELP_FLAGS = new Set(['--help', '-h']);

const TOP_HELP = `Usage: npm run --silent admin -- <command> [flags]
       node tools/admin/dist/main.js <command> [flags]      (in the gateway image)
       <command> --help                                      (a command's flags)

Operators' CLI. A command prints exactly one JSON object on stdout and exits 0; on failure it prints
{"error": {"code", "message", "details"?}} as the last line of stderr and exits 2 (bad flags) or 1.

Commands:
${Object.entries(COMMANDS)
  // The longest name sets the column, plus two spaces, so a new long name never runs into its summary.
  .map(([name, c], _, all) => `  ${name.padEnd(Math.max(...all.map(([n]) => n.length)) + 2)}${c.summary}`)
  .join('\n')}

Secrets never go on the command line: pipe them in (--password-stdin, --webhook-secret-stdin) or set
ADMIN_MERCHANT_PASSWORD / ADMIN_WEBHOOK_SECRET (with --webhook-secret-from-env). --password and
--webhook-secret still work, with a warning on stderr.

Environment: DATABASE_URL, WEBHOOK_SECRET_KEY, WEBHOOK_ALLOW_PRIVATE_TARGETS (every command);
NATS_URL, IDENTITY_TOKEN_SECRET, BUS_NAMESPACE (payment:confirm, refund:settle, payment:sync); PUBLIC_BASE_URL (link:show);
PAYOUT_PAYER_NAME, PAYOUT_PAYER_INN, PAYOUT_PAYER_KPP, PAYOUT_PAYER_BIK, PAYOUT_PAYER_ACCOUNT, PAYOUT_PAYER_BANK
(payout:batch:export, payout:statement:import).`;

export type CliOutcome =
  /** A check that found a fault (ledger:verify) still prints its result, and exits with `exitCode`. */
  | { ok: true; result: object; exitCode?: number }
  /** `--help`: text for a person, on stdout, and nothing touched. */
  | { ok: true; help: string }
  | { ok: false; exitCode: number; error: WireError };

/** The help a command line asks for, if any: `--help`, `help [command]`, or `<command> --help`. */
function helpFor(argv: string[]): string | undefined {
  const [first, ...rest] = argv;
  if (first === undefined) return undefined;
  if (HELP_FLAGS.has(first)) return TOP_HELP;
  if (first === 'help') return rest[0] === undefined ? TOP_HELP : COMMANDS[rest[0]]?.help;
  const command = COMMANDS[first];
  return command && rest.some((a) => HELP_FLAGS.has(a)) ? command.help : undefined;
}

/** Runs one command; never throws: every failure becomes an error object and an exit code. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<CliOutcome> {
  const [name, ...args] = argv;
  let ctx: AdminContext | undefined;
  try {
    const help = helpFor(argv);
    if (help !== undefined) return { ok: true, help };
    const command = name === undefined ? undefined : COMMANDS[name];
    if (!command) {
      const message = `Unknown command ${JSON.stringify(name ?? '')}; expected one of ${Object.keys(COMMANDS).join(', ')} (or --help)`;
      throw validationFailed(message, [{ field: 'command', code: 'invalid_value', message }]);
    }
    ctx = new AdminContext(loadAdminConfig(env), env);
    const result = await command.run(args, ctx, io);
    return { ok: true, result, exitCode: command.exitCode?.(result) ?? 0 };
  } catch (e) {
    // Operators need the real reason, so an unexpected error keeps its message (no stack).
    const error = isAppError(e) ? e : new AppError('internal', 'common.err.internal', e instanceof Error ? e.message : String(e));
    return { ok: false, exitCode: error.kind === 'validation' ? 2 : 1, error: error.toWire() };
  } finally {
    await ctx?.close();
  }
}

/** What the process prints and exits with for an outcome: the JSON-on-stdout contract of docs/product-decisions.md. */
export function renderOutcome(outcome: CliOutcome): { stdout: string; stderr: string; exitCode: number } {
  if (outcome.ok && 'help' in outcome) return { stdout: `${outcome.help}\n`, stderr: '', exitCode: 0 };
  if (outcome.ok) return { stdout: `${JSON.stringify(outcome.result)}\n`, stderr: '', exitCode: outcome.exitCode ?? 0 };
  const { code, message, details } = outcome.error;
  const error = details === undefined ? { code, message } : { code, message, details };
  return { stdout: '', stderr: `${JSON.stringify({ error })}\n`, exitCode: outcome.exitCode };
}
