import type { Db } from '@pl/db';
import type { AuditEntry, AuditRecorder } from '../domain/audit';

// Placeholder while the session API is built: the audit log's table and reads are filled in by its owner.
export class AuditLogRepository implements AuditRecorder {
  constructor(private readonly db: Db) {}

  async record(_entry: AuditEntry): Promise<void> {
    await this.db.ping();
  }
}
