import type { AccountRole, AuditEventType } from '@pl/contracts';

/**
 * One credential or team change (or a sign-in from a new address) as the audit log keeps it: ids only, never a
 * secret. Who did it (user, role, address, user agent) need not be passed: what the entry leaves out is taken from
 * the request it is written in (domain/request-context.ts), and a user's role from their membership of the account.
 */
export interface AuditEntry {
  merchantId: string;
  type: AuditEventType;
  /** The client address the change came from; the request's when null. */
  ip: string | null;
  /** Which key, shop or address: an id or a public key. */
  subject: string | null;
  /** The user behind the change; the session's user when absent; none for an API key or an operator. */
  userId?: string;
  /** The role the user acted in; the session's when it is theirs in this account, else their membership's. */
  role?: AccountRole;
  /** The client's `User-Agent`; the request's when absent. */
  userAgent?: string | null;
}

/** The append-only audit log, as routes that change credentials write to it. */
export interface AuditRecorder {
  record(entry: AuditEntry): Promise<void>;
}
