import { AppError, isAppError, validationFailed, type WireError } from '@pl/errors';
import { merchantCreate } from './commands/merchant-create';
import { paymentConfirm } from './commands/payment-confirm';
import { paymentLate } from './commands/payment-late';
import { shopCreate } from './commands/shop-create';
import { shopUpdate } from './commands/shop-update';
import { loadAdminConfig } from './config';
import { AdminContext } from './context';

type Command = (args: string[], ctx: AdminContext) => Promise<object>;

const COMMANDS: Readonly<Record<string, Command>> = {
  'merchant:create': merchantCreate,
  'shop:create': shopCreate,
  'shop:update': shopUpdate,
  'payment:confirm': paymentConfirm,
  'payment:late': paymentLate,
};

export type CliOutcome = { ok: true; result: object } | { ok: false; exitCode: number; error: WireError };

/** Runs one command; never throws: every failure becomes an error object and an exit code. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliOutcome> {
  const [name, ...args] = argv;
  let ctx: AdminContext | undefined;
  try {
    const command = name === undefined ? undefined : COMMANDS[name];
    if (!command) {
      const message = `Unknown command ${JSON.stringify(name ?? '')}; expected one of ${Object.keys(COMMANDS).join(', ')}`;
      throw validationFailed(message, [{ field: 'command', code: 'invalid_value', message }]);
    }
    ctx = new AdminContext(loadAdminConfig(env), env);
    return { ok: true, result: await command(args, ctx) };
  } catch (e) {
    // Operators need the real reason, so an unexpected error keeps its message (no stack).
    const error = isAppError(e) ? e : new AppError('internal', 'common.err.internal', e instanceof Error ? e.message : String(e));
    return { ok: false, exitCode: error.kind === 'validation' ? 2 : 1, error: error.toWire() };
  } finally {
    await ctx?.close();
  }
}
