import type { z } from 'zod';
import { validationFailed, type AppError } from '@pl/errors';

export interface ValidationIssue {
  /** Dotted path of the offending field, '' for the body itself. */
  field: string;
  code: string;
  message: string;
  /** For unknown fields: their names. */
  keys?: string[];
}

/** Zod issues as clients see them in `error.details`: no input values echoed back. */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((i) => {
    const issue: ValidationIssue = { field: i.path.map(String).join('.'), code: i.code, message: i.message };
    if (i.code === 'unrecognized_keys') issue.keys = [...i.keys];
    return issue;
  });
}

/** One 400 validation_failed naming every problem. */
export function validationError(issues: ValidationIssue[], what = 'Request'): AppError {
  const summary = issues
    .map((i) => (i.keys ? `unknown field(s) ${i.keys.join(', ')}` : `${i.field || 'body'}: ${i.message}`))
    .join('; ');
  return validationFailed(`${what} is invalid: ${summary}`, issues);
}

/** Parses with a schema or throws a 400 validation_failed with the issues in details. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what?: string): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(toValidationIssues(result.error.issues), what);
  return result.data;
}
