import type { Db } from '@pl/db';
import type { AuditEventType } from '@pl/contracts';
import type { AccountRole } from '@pl/contracts';
import type { AuditEntry, AuditRecorder } from '../domain/audit';
import { requestActor } from '../domain/request-context';

/** Anything that runs a parameterised statement: the pool, or the connection of a transaction. */
interface Queryable {
  query(sql: string, params: unknown[]): Promise<unknown>;
}

/**
 * Appends one audit event. The gateway's own credential changes (API keys, passwords) call it inside the
 * transaction that makes the change, so the change and its event are committed together or not at all. Who did it
 * comes from the entry, else from the request it is written in; a role neither names is the user's membership's in
 * the account, read in the same statement (a member who just joined is named in their new role).
 */
export async function appendAuditEvent(db: Queryable, entry: AuditEntry): Promise<void> {
  const actor = requestActor();
  const userId = entry.userId ?? actor?.userId ?? null;
  // The session's role is the one it acted in only for its own user in its own account (accepting an invitation
  // with a session writes the joiner's entry in another account).
  const sessionRole = actor?.userId === userId && actor.merchantId === entry.merchantId ? actor.role : undefined;
  await db.query(
    `INSERT INTO audit_events (merchant_id, type, ip, subject, user_id, role, user_agent)
     VALUES ($1, $2, $3, $4, $5::uuid,
             COALESCE($6::text, (SELECT role FROM memberships WHERE user_id = $5::uuid AND merchant_id = $1)), $7)`,
    [
      entry.merchantId,
      entry.type,
      entry.ip ?? actor?.ip ?? null,
      entry.subject,
      userId,
      entry.role ?? sessionRole ?? null,
      entry.userAgent === undefined ? (actor?.userAgent ?? null) : entry.userAgent,
    ],
  );
}

/** One audit event as read back, newest first. */
export interface AuditEventRecord {
  seq: string;
  type: AuditEventType;
  at: Date;
  ip: string | null;
  subject: string | null;
  userId: string | null;
  /** The user's email now (a user's email is theirs to change; the id is what the event was written with). */
  userEmail: string | null;
  role: AccountRole | null;
  userAgent: string | null;
}

/**
 * The append-only audit log (`audit_events`): rows are inserted, never changed (a trigger refuses UPDATE,
 * DELETE and TRUNCATE). Events are paged newest first by their sequence number.
 */
export class AuditLogRepository implements AuditRecorder {
  constructor(private readonly db: Db) {}

  /** For changes made elsewhere (the shops service): recorded after they answered. */
  async record(entry: AuditEntry): Promise<void> {
    await appendAuditEvent(this.db, entry);
  }

  /** Up to `limit` events of a merchant older than `before` (a sequence number), newest first, and whether more follow. */
  async page(merchantId: string, limit: number, before: bigint | null): Promise<{ events: AuditEventRecord[]; hasMore: boolean }> {
    // Ordered by the column, qualified: a bare `seq` would name the text alias, and '9' sorts after '10'.
    const rows = await this.db.query<AuditEventRecord>(
      `SELECT a.seq::text AS seq, a.type, a.at, a.ip, a.subject, a.user_id AS "userId", u.email AS "userEmail", a.role,
              a.user_agent AS "userAgent"
         FROM audit_events a LEFT JOIN users u ON u.id = a.user_id
        WHERE a.merchant_id = $1 AND ($2::bigint IS NULL OR a.seq < $2::bigint)
        ORDER BY a.seq DESC LIMIT $3`,
      [merchantId, before === null ? null : before.toString(), limit + 1],
    );
    return { events: rows.slice(0, limit), hasMore: rows.length > limit };
  }
}
