import { parseArgs, type ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import { bps, positiveId } from '@pl/contracts';
import { validationFailed } from '@pl/errors';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses a command's flags strictly (unknown flags and positionals are errors) and validates the
 * values with zod; every problem is a validation error naming the flag.
 */
export function parseFlags<S extends z.ZodType>(args: string[], options: Options, schema: S): z.output<S> {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args, options, strict: true, allowPositionals: false }));
  } catch (e) {
    throw validationFailed(e instanceof Error ? e.message : 'Invalid flags');
  }
  const parsed = schema.safeParse({ ...values });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => ({ flag: `--${String(i.path[0] ?? '')}`, message: i.message }));
    throw validationFailed(problems.map((p) => `${p.flag}: ${p.message}`).join('; '), problems);
  }
  return parsed.data;
}

/** A whole number given as a flag, then checked by `inner`. */
const wholeNumber = <T extends z.ZodType<unknown, number>>(inner: T) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,15})$/, { message: 'must be a whole number' })
    .transform(Number)
    .pipe(inner);

export const bpsFlag = wholeNumber(bps);
export const idFlag = wholeNumber(positiveId);
