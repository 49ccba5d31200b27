import type { Db } from '@pl/db';
import type { MailLanguage, MailTemplate } from './request';

/** A mail a worker has claimed: its for the lease. */
export interface ClaimedMail {
  id: string;
  recipient: string;
  template: MailTemplate;
  language: MailLanguage;
  params: Record<string, string>;
  createdAt: Date;
  /** This attempt's number, 1 for the first. */
  attempt: number;
}

interface ClaimedRow {
  id: string;
  recipient: string;
  template: MailTemplate;
  language: MailLanguage;
  params: Record<string, string>;
  created_at: Date;
  attempts: number;
}

/** How long a sent mail's row is kept (its params already cleared), for an operator asking "was it sent?". */
const KEEP_SENT_DAYS = 7;

/**
 * The gateway schema's `mail_queue` as the workers see it. A claim moves `due_at` a lease ahead in the same
 * statement that picks the rows (`FOR UPDATE SKIP LOCKED`), so replicas never claim the same mail while its
 * lease runs, and no row lock is held while SMTP talks.
 */
export class MailQueue {
  constructor(private readonly db: Db) {}

  async claim(limit: number, leaseMs: number): Promise<ClaimedMail[]> {
    const rows = await this.db.query<ClaimedRow>(
      `UPDATE mail_queue SET due_at = now() + $2::int * interval '1 millisecond', attempts = attempts + 1
        WHERE id IN (
          SELECT id FROM mail_queue
           WHERE sent_at IS NULL AND failed_at IS NULL AND due_at <= now()
           ORDER BY due_at
           LIMIT $1
           FOR UPDATE SKIP LOCKED)
        RETURNING id, recipient, template, language, params, created_at, attempts`,
      [limit, leaseMs],
    );
    return rows.map((r) => ({
      id: r.id,
      recipient: r.recipient,
      template: r.template,
      language: r.language,
      params: r.params,
      createdAt: r.created_at,
      attempt: r.attempts,
    }));
  }

  /** Done: the links in its params hold single-use tokens, which the queue need not keep any longer. */
  async markSent(id: string): Promise<void> {
    await this.db.query(`UPDATE mail_queue SET sent_at = now(), params = '{}', last_error = NULL WHERE id = $1 AND sent_at IS NULL`, [id]);
  }

  async retryLater(id: string, delayMs: number, error: string): Promise<void> {
    await this.db.query(
      `UPDATE mail_queue SET due_at = now() + $2::int * interval '1 millisecond', last_error = $3 WHERE id = $1 AND sent_at IS NULL`,
      [id, delayMs, error],
    );
  }

  /** Given up for good: kept, without its params, for the operator (docs/operations.md). */
  async giveUp(id: string, error: string): Promise<void> {
    await this.db.query(`UPDATE mail_queue SET failed_at = now(), params = '{}', last_error = $2 WHERE id = $1 AND sent_at IS NULL`, [id, error]);
  }

  /** Mails still to send, and how long the oldest of them has waited since it was enqueued. */
  async backlog(): Promise<{ depth: number; oldestAgeSeconds: number }> {
    const [row] = await this.db.query<{ depth: number; oldest: number | null }>(
      `SELECT count(*)::int AS depth, extract(epoch FROM now() - min(created_at))::float8 AS oldest
         FROM mail_queue WHERE sent_at IS NULL AND failed_at IS NULL`,
    );
    return { depth: row?.depth ?? 0, oldestAgeSeconds: Math.max(0, row?.oldest ?? 0) };
  }

  /** Forgets sent mails older than a week; failed ones stay until an operator has looked. */
  async forgetOldSent(): Promise<void> {
    await this.db.query(`DELETE FROM mail_queue WHERE sent_at < now() - $1::int * interval '1 day'`, [KEEP_SENT_DAYS]);
  }
}
