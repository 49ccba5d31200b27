import { createClient } from '@pl/client';
import type { Mode } from '@pl/contracts';
import type { FieldIssue } from '@pl/errors';

/** An answer of the session API other than success: its `{ error: { code, message, details? } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly FieldIssue[] = [],
  ) {
    super(message);
  }
}

/** Code for a request that never got an answer (offline, server down). */
export const NETWORK_ERROR = 'dashboard.network';

let onUnauthorized: () => void = () => undefined;
/** What to do when the session is gone (401 from any call but the sign-in itself): back to the sign-in page. */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

/** @pl/contracts' MODE_HEADER, written out: importing a value from the contracts would bundle zod into the app. */
const MODE_HEADER = 'Pl-Mode';
let requestMode: Mode = 'live';
/**
 * The mode every later call acts in (docs/test-mode.md: a session acts in live mode unless `Pl-Mode: test` says otherwise).
 * Set before the pages that load in it are rendered, so no call of the new mode goes out with the old header.
 */
export function setRequestMode(mode: Mode): void {
  requestMode = mode;
}

/**
 * The session API, typed from docs/openapi.json (@pl/client): same origin (the CSP's connect-src 'self'), the HttpOnly
 * `sid` cookie goes by itself (the app never holds a token), JSON both ways. The browser adds `Origin` to every POST
 * and PATCH, which the server's CSRF check wants. In test mode every call carries `Pl-Mode: test`.
 */
export const client = createClient('', { auth: { kind: 'session' }, credentials: 'same-origin' });
client.use({
  onRequest({ request }) {
    // Absent means live to the server, so live requests stay exactly as they were before test mode.
    if (requestMode === 'test') request.headers.set(MODE_HEADER, 'test');
    return request;
  },
  onResponse({ response, schemaPath }) {
    if (response.status === 401 && schemaPath !== '/api/v1/auth/login') onUnauthorized();
  },
});

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

function toApiError(status: number, body: unknown): ApiError {
  const error = (body as ErrorBody | null)?.error;
  const code = typeof error?.code === 'string' ? error.code : 'common.err.internal';
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${status}`;
  const details = Array.isArray(error?.details) ? (error.details as FieldIssue[]) : [];
  return new ApiError(status, code, message, details);
}

/**
 * The data of one call of `client` (`call(client.GET('/api/v1/me'))`), or an ApiError: the answer's error body, or
 * NETWORK_ERROR when no answer came.
 */
export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await request;
  } catch (e) {
    throw new ApiError(0, NETWORK_ERROR, e instanceof Error ? e.message : 'Network error');
  }
  if (!answer.response.ok) throw toApiError(answer.response.status, answer.error ?? null);
  return answer.data as T;
}

/** The given query values without the empty ones (a filter left blank is no filter). */
export function present<T extends object>(params: T): { [K in keyof T]?: Exclude<T[K], '' | null | undefined> } {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== '')) as {
    [K in keyof T]?: Exclude<T[K], '' | null | undefined>;
  };
}

/** What every list of the session API answers beside its items: cursor paging. */
export interface CursorPage {
  has_more: boolean;
  next_cursor: string | null;
}
