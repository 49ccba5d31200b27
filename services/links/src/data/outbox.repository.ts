import type { PoolClient } from 'pg';
import type { Db } from '@pl/db';
import type { OutboxEntry } from '../domain/link';

/** The channel the outbox insert notifies on commit, so an idle relay wakes at once instead of at its next poll. */
export const OUTBOX_CHANNEL = 'links_outbox';

interface OutboxRow {
  id: string;
  topic: string;
  message_key: string;
  payload: unknown;
  headers: Record<string, string>;
}

/** Writes an event inside the caller's transaction; the notification is delivered only if it commits. */
export async function insertOutboxEntry(client: PoolClient, entry: OutboxEntry): Promise<void> {
  await client.query(
    `INSERT INTO outbox (id, topic, message_key, payload, headers) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)`,
    [entry.id, entry.topic, entry.key, JSON.stringify(entry.payload), JSON.stringify(entry.headers)],
  );
  await client.query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, entry.key]);
}

/** A claimed batch: published by `publish`, then marked, all while the rows stay locked. */
export type BatchPublisher = (entries: OutboxEntry[]) => Promise<void>;

export class OutboxRepository {
  constructor(private readonly db: Db) {}

  /**
   * Claims up to `limit` unpublished rows (oldest first, skipping rows another relay holds), hands them
   * to `publish` and marks them published in the same transaction. If `publish` throws, or the process
   * dies before the commit, the rows stay unpublished and come again: at-least-once, never lost.
   * Returns how many rows were published.
   */
  publishBatch(limit: number, publish: BatchPublisher): Promise<number> {
    return this.db.transaction(async (client) => {
      const { rows } = await client.query<OutboxRow>(
        `SELECT id, topic, message_key, payload, headers FROM outbox
          WHERE published_at IS NULL
          ORDER BY created_at, id
          LIMIT $1
          FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (rows.length === 0) return 0;
      await publish(rows.map((r) => ({ id: r.id, topic: r.topic, key: r.message_key, payload: r.payload, headers: r.headers })));
      await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1::uuid[])', [rows.map((r) => r.id)]);
      return rows.length;
    });
  }
}
