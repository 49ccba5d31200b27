import { ERROR_CATALOGUE, httpStatusOf, type ErrorCode } from '@pl/errors';
import { errorCodesOf } from './document';
import { OPERATIONS } from './operations';

/** docs/errors.md: the catalogue as a table (code, HTTP status, when), and the operations that can answer each code. */
export function renderErrorsMarkdown(): string {
  const codes = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).sort((a, b) => httpStatusOf(a) - httpStatusOf(b) || a.localeCompare(b));
  const usedBy = new Map<ErrorCode, string[]>();
  for (const op of OPERATIONS) for (const code of errorCodesOf(op)) usedBy.set(code, [...(usedBy.get(code) ?? []), op.operationId]);
  const cell = (text: string): string => text.replace(/\|/g, '\\|');
  const lines = [
    '# Error codes',
    '',
    '<!-- Generated from libs/errors/src/catalogue.ts by `npm run openapi`; a test fails when this file is stale. -->',
    '',
    'Every error answer is `{ "error": { "code": "...", "message": "...", "details": [...] } }`. `details` comes with',
    '`common.err.validation_failed` only: one `{ field, code, message }` per offending field. Branch on `code`, never on',
    '`message`. The OpenAPI document (`GET /openapi.json`, docs/openapi.json) lists, per operation and status, the codes it',
    'can answer. A known path with another method is 405 `common.err.method_not_allowed` on every route; a URL and headers',
    'past 16 KiB are 431 `common.err.request_too_large` on every path.',
    '',
    '| code | HTTP status | when |',
    '|---|---|---|',
    ...codes.map((c) => {
      const entry: { when: string; cliOnly?: true } = ERROR_CATALOGUE[c];
      const status = entry.cliOnly ? `${httpStatusOf(c)} (CLI only)` : String(httpStatusOf(c));
      return `| \`${c}\` | ${status} | ${cell(entry.when)} |`;
    }),
    '',
    '## Where each code can come from',
    '',
    '| code | operations |',
    '|---|---|',
    ...codes.map((c) => {
      const ops = usedBy.get(c);
      const where = ops
        ? ops.map((o) => `\`${o}\``).join(', ')
        : c === 'common.err.method_not_allowed'
          ? 'every route, for a method it does not serve'
          : c === 'common.err.request_too_large'
            ? 'every path, before any route (the HTTP server itself)'
            : "the operators' CLI (tools/admin)";
      return `| \`${c}\` | ${where} |`;
    }),
    '',
  ];
  return lines.join('\n');
}
