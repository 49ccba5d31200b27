import { z } from 'zod';
import { validationFailed, type AppError, type FieldIssue } from '@pl/errors';

/** Names of the JSON shapes a client can send, for "must be ..." messages. */
const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** A limit in a client's words: "at most 100", "at least 1 character", never zod's "expected int to be <=100". */
function boundOf(origin: string, relation: string, limit: number | bigint): string {
  const unit = origin === 'string' ? ' characters' : origin === 'array' || origin === 'set' ? ' items' : '';
  return `${relation} ${String(limit)}${Number(limit) === 1 && unit ? unit.slice(0, -1) : unit}`;
}

/**
 * zod's messages in words a client can read. zod's own name the received type (`received JsonNumberText`,
 * our class for a JSON number's source text), so no message here names what arrived, only what is wanted.
 * Messages a schema sets itself win over these.
 */
export const clientMessages: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${EXPECTED[issue.expected] ?? 'of another type'}`;
    case 'invalid_union':
      return 'is not one of the accepted forms';
    case 'too_big':
      return `must be ${boundOf(issue.origin, issue.inclusive ? 'at most' : 'below', issue.maximum)}`;
    case 'too_small':
      return `must be ${boundOf(issue.origin, issue.inclusive ? 'at least' : 'above', issue.minimum)}`;
    default:
      return undefined;
  }
};

/**
 * zod issues as {@link FieldIssue}s, the one details shape: the dotted path as `field`, and each unknown
 * key a field of its own (zod lists them in one issue on the parent). A field is named once, by its first
 * problem: a value past two checks (an integer's safe range and the route's maximum) is one mistake to the client.
 */
export function fieldIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  const named = new Set<string>();
  return allFieldIssues(issues).filter((issue) => !named.has(issue.field) && Boolean(named.add(issue.field)));
}

function allFieldIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  return issues.flatMap((issue): FieldIssue[] => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: [...path, key].join('.'), code: issue.code, message: 'is not a known field' }));
    }
    return [{ field: path.join('.'), code: issue.code, message: issue.message }];
  });
}

/** One 400 validation_failed naming every problem, `what` being the input ("Request body", "Query", "Flags"). */
export function invalidInput(issues: readonly FieldIssue[], what = 'Request'): AppError {
  const summary = issues.map((i) => `${i.field || 'body'}: ${i.message}`).join('; ');
  return validationFailed(`${what} is invalid: ${summary}`, issues);
}

/** Parses with a schema, with {@link clientMessages}, or throws a 400 validation_failed listing every problem. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what?: string): z.output<S> {
  const result = schema.safeParse(input, { error: clientMessages });
  if (!result.success) throw invalidInput(fieldIssues(result.error.issues), what);
  return result.data;
}
