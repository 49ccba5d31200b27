import { ApiError } from '../api/client';
import { wordFor, type Messages } from './messages';

/** An API error in the page's language: our words for the codes we know, the server's message otherwise. */
export function errorText(t: Messages, e: unknown): string {
  if (!(e instanceof ApiError)) return t.errors['common.err.internal'];
  const known = wordFor(t.errors, e.code);
  const ours = known !== e.code;
  if (e.code === 'common.err.validation_failed' && e.details.length > 0) {
    return [known, ...e.details.map((d) => `${d.field || '—'}: ${fieldIssueText(t, d)}`)].join(' ');
  }
  return ours ? known : e.message;
}

/** One field's problem as the server described it: our words for zod's issue codes, its message otherwise. */
export function fieldIssueText(t: Messages, issue: { code: string; message: string }): string {
  const known = wordFor(t.fieldIssue, issue.code);
  return known === issue.code ? issue.message : known;
}
