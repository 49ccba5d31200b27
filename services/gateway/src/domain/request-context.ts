import { AsyncLocalStorage } from 'node:async_hooks';
import type { AccountRole } from '@pl/contracts';

/**
 * Who a request comes from, as far as it is known: the client's address and user agent from the start, the user and
 * their role once a session is authenticated. Kept for the length of the request so that what it writes (an audit
 * entry, a new session) names its actor without every caller passing it down (docs/adr/0030).
 */
export interface RequestActor {
  /** The client address as the gateway sees it (behind its trusted proxies); null when unknown. */
  ip: string | null;
  /** The client's `User-Agent`, cut to {@link USER_AGENT_MAX} characters; null when not sent. */
  userAgent: string | null;
  /** The session's user; absent for API keys, cashier keys and unauthenticated requests. */
  userId?: string;
  /** The role the session's user holds in the account the request acts for. */
  role?: AccountRole;
  /** The account the request acts for, the one `role` is held in. */
  merchantId?: string;
}

/** A user agent is the client's own text: kept, but never more than this. */
const USER_AGENT_MAX = 512;

const storage = new AsyncLocalStorage<RequestActor>();

/** Runs `fn` (the rest of a request) with its actor known to everything it calls, however deep and async. */
export function runAsRequest<T>(client: { ip: string | null; userAgent: string | null }, fn: () => T): T {
  const userAgent = client.userAgent === null ? null : client.userAgent.slice(0, USER_AGENT_MAX);
  return storage.run({ ip: client.ip, userAgent }, fn);
}

/** The current request's actor; undefined outside a request (a worker, the operators' CLI, a test). */
export const requestActor = (): RequestActor | undefined => storage.getStore();

/** Names the session's user, and their role in the account it acts for, on the current request once authentication has found them. */
export function actAs(userId: string, role: AccountRole, merchantId: string): void {
  const actor = storage.getStore();
  if (!actor) return;
  actor.userId = userId;
  actor.role = role;
  actor.merchantId = merchantId;
}
