import { createHash } from 'node:crypto';
import { JsonNumberText } from '@pl/contracts';

/**
 * JSON text with object keys sorted at every level, so two bodies that differ only in key order or
 * whitespace get the same text. Numbers kept as their source text stay unquoted: `10.10` and
 * `"10.10"` are different requests.
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof JsonNumberText) return value.source;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
    }
    default:
      throw new TypeError(`canonicalJson: unsupported ${typeof value}`);
  }
}

/** SHA-256 (hex) of the canonical JSON of a parsed request body: what an Idempotency-Key is bound to. */
export const bodyFingerprint = (body: unknown): string => createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
