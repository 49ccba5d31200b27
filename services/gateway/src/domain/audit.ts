import type { AuditEventType } from '@pl/contracts';

/** One credential change (or a sign-in from a new address) as the audit log keeps it: ids only, never a secret. */
export interface AuditEntry {
  merchantId: string;
  type: AuditEventType;
  /** The client address the change came from. */
  ip: string | null;
  /** Which key, shop or address: an id or a public key. */
  subject: string | null;
  /** The user behind a session's change; absent for an API key or an operator. */
  userId?: string;
}

/** The append-only audit log, as routes that change credentials write to it. */
export interface AuditRecorder {
  record(entry: AuditEntry): Promise<void>;
}
