import { flagsInvalid } from './flags';

/** What a command may ask of the terminal besides its flags; main.ts wires the process's, tests their own. */
export interface CliIo {
  /** Everything on standard input, up to its end (a secret piped or typed in, then Ctrl-D). */
  readStdin(): Promise<string>;
  /** One line for the operator on stderr: stdout carries nothing but the result. */
  warn(message: string): void;
}

/** Where a command may take one secret from, most preferred first. */
export interface SecretSource {
  /** The flag that carries the value itself, kept for compatibility: it lands in shell history and `ps`. */
  flag: string;
  /** The boolean flag that reads the value from standard input. */
  stdinFlag: string;
  /** The environment variable that may hold the value. */
  envName: string;
  /**
   * A boolean flag that must ask for the variable, for secrets a command does not need: a variable left in the
   * shell must not change a shop's secret by itself. Undefined: the variable is read whenever no flag gives the value.
   */
  envFlag?: string;
}

/** A value read from a pipe or a file ends with the newline that `echo` or an editor put there: it is not part of the secret. */
const withoutFinalNewline = (text: string): string => text.replace(/\r?\n$/, '');

/**
 * The flags as read, with the secret `source` names in its own flag (from wherever it was given) and its other
 * flags gone, ready for the command's schema. Exactly one way may be used; a value on the command line still
 * works but warns, and an empty value from stdin or the environment is refused (an empty `--flag ''` keeps its
 * meaning, e.g. "clear it").
 */
export async function withSecret(
  values: Readonly<Record<string, unknown>>,
  source: SecretSource,
  env: NodeJS.ProcessEnv,
  io: CliIo,
): Promise<Record<string, unknown>> {
  const ways = [source.flag, source.stdinFlag, ...(source.envFlag === undefined ? [] : [source.envFlag])];
  const rest = Object.fromEntries(Object.entries(values).filter(([flag]) => !ways.includes(flag)));
  const secret = await secretOf(values, source, env, io);
  return secret === undefined ? rest : { ...rest, [source.flag]: secret };
}

async function secretOf(
  values: Readonly<Record<string, unknown>>,
  source: SecretSource,
  env: NodeJS.ProcessEnv,
  io: CliIo,
): Promise<string | undefined> {
  const inline = values[source.flag];
  const stdin = values[source.stdinFlag] === true;
  const envAsked = source.envFlag === undefined ? undefined : values[source.envFlag] === true;
  const given = [
    inline !== undefined && `--${source.flag}`,
    stdin && `--${source.stdinFlag}`,
    envAsked === true && `--${source.envFlag ?? ''}`,
  ].filter((f): f is string => typeof f === 'string');
  if (given.length > 1) {
    throw flagsInvalid([{ field: source.flag, code: 'invalid_flags', message: `give it one way only, not ${given.join(' and ')}` }]);
  }
  if (typeof inline === 'string') {
    if (inline !== '') {
      io.warn(
        `warning: --${source.flag} leaves the secret in shell history and the process list; use --${source.stdinFlag} or ${source.envName} instead`,
      );
    }
    return inline;
  }
  if (stdin) return nonEmpty(withoutFinalNewline(await io.readStdin()), source.flag, `standard input (--${source.stdinFlag}) is empty`);
  const fromEnv = envAsked === false ? undefined : env[source.envName];
  if (envAsked === true && fromEnv === undefined) {
    throw flagsInvalid([{ field: source.flag, code: 'invalid_flags', message: `--${source.envFlag ?? ''} needs ${source.envName} to be set` }]);
  }
  return fromEnv === undefined ? undefined : nonEmpty(fromEnv, source.flag, `${source.envName} is empty`);
}

function nonEmpty(value: string, field: string, problem: string): string {
  if (value === '') throw flagsInvalid([{ field, code: 'too_small', message: problem }]);
  return value;
}
