import type { AppError, FieldIssue } from '@pl/errors';
import { invalidInput, parseOrThrow } from '@pl/contracts';

/**
 * The gateway's names for the one validation path of @pl/contracts: the same details shape and messages as
 * every other service and the admin CLI.
 */
export type ValidationIssue = FieldIssue;

export { parseOrThrow };

/** One 400 validation_failed naming every problem. */
export const validationError = (issues: ValidationIssue[], what = 'Request'): AppError => invalidInput(issues, what);
