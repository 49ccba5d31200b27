import type { Request, RequestHandler } from 'express';
import { validationError } from '../../domain/validation';

/** Where {@link parseQuery} lists the parameters it could not decode, out of sight of the query's own keys. */
const UNDECODABLE = Symbol('undecodable query parameters');

type ParsedQuery = Record<string, string | string[]> & { [UNDECODABLE]?: string[] };

/** `+` is a space in a query, and percent-encoding must spell UTF-8: else null (`%ED%A0%80`, `%FF`, `%E0%A4%A`). */
function decodeComponent(text: string): string | null {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return null;
  }
}

/**
 * The gateway's query parser (express's `query parser` setting): `name=value` pairs, a repeated name as an array,
 * on an object without a prototype. A name or value whose percent-encoding is not UTF-8 is not searched as its
 * literal text, as node's parser would: it is remembered, and the route answers 400 naming it, as it answers a
 * lone surrogate in a JSON body.
 */
export function parseQuery(text: string | null | undefined): ParsedQuery {
  const query = Object.create(null) as ParsedQuery;
  const undecodable: string[] = [];
  // Express hands over null for a URL without `?`.
  for (const pair of (text ?? '').split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const rawName = at === -1 ? pair : pair.slice(0, at);
    const name = decodeComponent(rawName);
    const value = decodeComponent(at === -1 ? '' : pair.slice(at + 1));
    if (name === null || value === null) {
      undecodable.push(name ?? rawName);
      continue;
    }
    const seen = query[name];
    query[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  if (undecodable.length > 0) query[UNDECODABLE] = undecodable;
  return query;
}

/** Throws 400 validation_failed naming each query parameter that was not percent-encoded UTF-8. */
export function assertQueryDecodable(req: Request): void {
  const undecodable = (req.query as ParsedQuery)[UNDECODABLE];
  if (undecodable === undefined) return;
  throw validationError(
    undecodable.map((field) => ({ field, code: 'invalid_encoding', message: 'is not percent-encoded UTF-8' })),
    'Query',
  );
}

/**
 * A path segment that does not decode (`%E0%A4%A`, `%ED%A0%80`) is kept as its literal text (`%` escaped as `%25`)
 * instead of failing the router's match: the route then runs its checks in their order, authentication (401)
 * first, and finds no object by such an id (404), as docs/product-decisions.md orders them.
 */
export const undecodablePathAsText: RequestHandler = (req, _res, next) => {
  const at = req.url.indexOf('?');
  const path = at === -1 ? req.url : req.url.slice(0, at);
  if (path.includes('%')) {
    const segments = path.split('/');
    const escaped = segments.map((s) => (decodeComponentStrict(s) === null ? s.replaceAll('%', '%25') : s));
    if (escaped.some((s, i) => s !== segments[i])) req.url = escaped.join('/') + (at === -1 ? '' : req.url.slice(at));
  }
  next();
};

/** A path segment as the router decodes it (`+` stays a plus); null when it does not decode. */
function decodeComponentStrict(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
