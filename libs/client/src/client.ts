import createFetchClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema';

/**
 * The credentials of the three security schemes of docs/openapi.json:
 * - `apiKey`: the account API key pair (`X-API-Key` + `X-API-Secret`) for `/merchant/v1`;
 * - `cashier`: a shop's cashier key (`Authorization: Bearer svc_live_...` or `svc_test_...`) for POST /api/v1/merchant/payments and
 *   POST /api/v1/payment-links;
 * - `session`: a dashboard session, either its token (`Authorization: Bearer ...`) or its cookie: in a browser the
 *   HttpOnly `sid` goes by itself (`{ kind: 'session' }` with `credentials: 'same-origin'`), elsewhere pass `sid`.
 * Keys carry their mode (`pk_test_`, `sk_test_`, `svc_test_` act in test mode); a session acts in test mode when its
 * calls send `Pl-Mode: test` (`headers: { 'Pl-Mode': 'test' }`, or per call in `params.header`).
 */
export type Credentials =
  | { kind: 'apiKey'; key: string; secret: string }
  | { kind: 'cashier'; key: string }
  | { kind: 'session'; token: string }
  | { kind: 'session'; sid?: string };

export interface CreateClientOptions {
  /** Who calls; none for the public routes (sign-in, the buyer's page). */
  auth?: Credentials;
  /** Headers sent with every call, e.g. `Origin` for a cookie session outside a browser (the CSRF check wants it). */
  headers?: Record<string, string>;
  /** The fetch's `credentials`: the dashboard passes 'same-origin' so the browser sends the `sid` cookie. */
  credentials?: RequestInit['credentials'];
}

/** A typed client of every operation of docs/openapi.json: `client.GET('/api/v1/me')` answers `{ data, error, response }`. */
export type ApiClient = Client<paths, 'application/json'>;

/** The headers that carry the given credentials. */
function authHeaders(auth: Credentials | undefined): Record<string, string> {
  if (!auth) return {};
  switch (auth.kind) {
    case 'apiKey':
      return { 'X-API-Key': auth.key, 'X-API-Secret': auth.secret };
    case 'cashier':
      return { Authorization: `Bearer ${auth.key}` };
    case 'session':
      if ('token' in auth) return { Authorization: `Bearer ${auth.token}` };
      return auth.sid === undefined ? {} : { Cookie: `sid=${auth.sid}` };
  }
}

/**
 * A client of the gateway at `baseUrl` ('' in the browser: same origin). JSON both ways: openapi-fetch serialises the
 * body with `Content-Type: application/json` and parses the answer; every call also asks for JSON and carries the
 * credentials' headers.
 */
export function createClient(baseUrl: string, options: CreateClientOptions = {}): ApiClient {
  const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders(options.auth), ...options.headers };
  return createFetchClient<paths, 'application/json'>({
    baseUrl,
    headers,
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
  });
}
