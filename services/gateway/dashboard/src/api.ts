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
 * One call of the session API: same origin, the HttpOnly `sid` cookie goes by itself (the app never holds a token),
 * JSON both ways. The browser adds `Origin` to every POST and PATCH, which the server's CSRF check wants.
 */
export async function api<T>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const init: RequestInit = { method, credentials: 'same-origin', headers };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, NETWORK_ERROR, e instanceof Error ? e.message : 'Network error');
  }
  const text = await res.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    if (res.status === 401 && path !== '/api/v1/auth/login') onUnauthorized();
    throw toApiError(res.status, data);
  }
  return data as T;
}

/** A query string from the given values, leaving out empty ones. */
export function query(params: Record<string, string | number | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
