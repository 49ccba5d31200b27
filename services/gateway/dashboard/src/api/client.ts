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
    /** A 429's `Retry-After`, in seconds: when the budget allows another try. */
    readonly retryAfterSeconds: number | null = null,
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

/**
 * Asks the user for a second factor (frame/step-up.tsx's dialog) and verifies it; true once the session is stepped up,
 * false when they gave up. None while no signed-in page is shown: the 403 then reaches the caller as it came.
 */
let askStepUp: (() => Promise<boolean>) | null = null;
export function setStepUpHandler(handler: (() => Promise<boolean>) | null): void {
  askStepUp = handler;
}

let onEnrollRequired: () => void = () => undefined;
/**
 * What to do when a page's read answers 403 `auth.err.two_factor_required`: only a member of an account that requires
 * a second factor, and has none, is refused a read (docs/adr/0028), so that member is sent to enroll one.
 */
export function setEnrollRequiredHandler(handler: () => void): void {
  onEnrollRequired = handler;
}

const STEP_UP_REQUIRED = 'auth.err.step_up_required';
const TWO_FACTOR_REQUIRED = 'auth.err.two_factor_required';

async function errorCodeOf(response: Response): Promise<string | null> {
  if (response.status !== 403) return null;
  try {
    const code: unknown = ((await response.clone().json()) as ErrorBody | null)?.error?.code;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}

/**
 * Each change's request as sent, kept until its answer came, to be sent again after a step-up. A body is read once by
 * fetch, so its text is read here and the change goes out with that text (not a stream tee'd for the copy).
 */
const unanswered = new Map<string, () => Request>();

client.use({
  async onRequest({ request, id }) {
    // Absent means live to the server, so live requests stay exactly as they were before test mode.
    if (requestMode === 'test') request.headers.set(MODE_HEADER, 'test');
    if (request.method === 'GET') return request;
    const body = request.body === null ? null : await request.text();
    const again = (): Request =>
      new Request(request.url, {
        method: request.method,
        headers: request.headers,
        body,
        credentials: request.credentials,
        redirect: request.redirect,
      });
    unanswered.set(id, again);
    return again();
  },
  async onResponse({ response, schemaPath, request, id }) {
    const again = unanswered.get(id);
    unanswered.delete(id);
    if (response.status === 401 && schemaPath !== '/api/v1/auth/login') onUnauthorized();
    const code = await errorCodeOf(response);
    if (code === TWO_FACTOR_REQUIRED && request.method === 'GET') onEnrollRequired();
    // Step-up in one place (docs/dashboard.md): every action the server refuses for a stale second factor asks for
    // one, then goes again exactly once; giving up leaves the refusal to the page, which shows it in words.
    if (code === STEP_UP_REQUIRED && again && askStepUp && (await askStepUp())) return fetch(again());
    return undefined;
  },
  onError({ id }) {
    unanswered.delete(id);
  },
});

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

function toApiError(status: number, body: unknown, retryAfter: string | null = null): ApiError {
  const error = (body as ErrorBody | null)?.error;
  const code = typeof error?.code === 'string' ? error.code : 'common.err.internal';
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${status}`;
  const details = Array.isArray(error?.details) ? (error.details as FieldIssue[]) : [];
  const seconds = retryAfter !== null && /^[0-9]+$/.test(retryAfter) ? Number(retryAfter) : null;
  return new ApiError(status, code, message, details, seconds);
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
  if (!answer.response.ok) throw toApiError(answer.response.status, answer.error ?? null, answer.response.headers.get('Retry-After'));
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
