import { parseArgs, type ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import { bps, clientMessages, fieldIssues, positiveId, textProblem } from '@pl/contracts';
import { validationFailed, type FieldIssue } from '@pl/errors';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Flags hold one-line values (names, emails, URLs, secrets): the contracts' one text rule without its length. */
const FLAG_TEXT = { max: Number.MAX_SAFE_INTEGER } as const;

/**
 * Parses a command's flags strictly (unknown flags and positionals are errors) and validates the
 * values: every string by the one text rule, then the command's zod schema. Every problem is a
 * validation error in the one details shape, `field` being the flag's name. An empty value passes the
 * text rule here, because `--webhook-url ''` means "clear it"; the command's schema decides the rest.
 */
export function parseFlags<S extends z.ZodType>(args: string[], options: Options, schema: S): z.output<S> {
  return checkFlags(readFlags(args, options), schema);
}

/** The flags as given, parsed strictly (unknown flags and positionals are errors) but not yet validated. */
export function readFlags(args: string[], options: Options): Record<string, unknown> {
  try {
    return { ...parseArgs({ args, options, strict: true, allowPositionals: false }).values };
  } catch (e) {
    // node:util's message names the flag; `instanceof Error` would miss errors from another realm (a test VM).
    const message = typeof (e as { message?: unknown } | null)?.message === 'string' ? (e as { message: string }).message : 'Invalid flags';
    throw validationFailed(message, [{ field: '', code: 'invalid_flags', message }]);
  }
}

/** Validates flag values (a secret read from stdin or the environment included): the one text rule, then `schema`. */
export function checkFlags<S extends z.ZodType>(values: Record<string, unknown>, schema: S): z.output<S> {
  const textIssues: FieldIssue[] = Object.entries(values).flatMap(([flag, value]) => {
    const problem = typeof value === 'string' && value !== '' ? textProblem(value, FLAG_TEXT) : null;
    return problem === null ? [] : [{ field: flag, code: 'custom', message: problem }];
  });
  if (textIssues.length > 0) throw flagsInvalid(textIssues);
  const parsed = schema.safeParse(values, { error: clientMessages });
  if (!parsed.success) throw flagsInvalid(fieldIssues(parsed.error.issues));
  return parsed.data;
}

/** Flags are named as an operator types them in the message (`--email: ...`), by name in `details`. */
export const flagsInvalid = (issues: FieldIssue[]) => validationFailed(issues.map((i) => `--${i.field}: ${i.message}`).join('; '), issues);

/** A whole number given as a flag, then checked by `inner`. */
const wholeNumber = <T extends z.ZodType<unknown, number>>(inner: T) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,15})$/, { message: 'must be a whole number' })
    .transform(Number)
    .pipe(inner);

export const bpsFlag = wholeNumber(bps);
export const idFlag = wholeNumber(positiveId);
export const uuidFlag = (what: string) => z.uuid({ message: `must be ${what} id (UUID)` });
