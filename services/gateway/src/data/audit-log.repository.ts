import type { Db } from '@pl/db';
import type { AuditEventType } from '@pl/contracts';
import type { AuditEntry, AuditRecorder } from '../domain/audit';

/** Anything that runs a parameterised statement: the pool, or the connection of a transaction. */
interface Queryable {
  query(sql: string, params: unknown[]): Promise<unknown>;
}

/**
 * Appends one audit event. The gateway's own credential changes (API keys, passwords) call it inside the
 * transaction that makes the change, so the change and its event are committed together or not at all.
 */
export async function appendAuditEvent(db: Queryable, entry: AuditEntry): Promise<void> {
  await db.query('INSERT INTO audit_events (merchant_id, type, ip, subject, user_id) VALUES ($1, $2, $3, $4, $5)', [
    entry.merchantId,
    entry.type,
    entry.ip,
    entry.subject,
    entry.userId ?? null,
  ]);
}

/** One audit event as read back, newest first. */
export interface AuditEventRecord {
  seq: string;
  type: AuditEventType;
  at: Date;
  ip: string | null;
  subject: string | null;
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
      `SELECT e.seq::text AS seq, e.type, e.at, e.ip, e.subject FROM audit_events e
        WHERE e.merchant_id = $1 AND ($2::bigint IS NULL OR e.seq < $2::bigint)
        ORDER BY e.seq DESC LIMIT $3`,
      [merchantId, before === null ? null : before.toString(), limit + 1],
    );
    return { events: rows.slice(0, limit), hasMore: rows.length > limit };
  }
}
