import type { PoolClient } from 'pg';
import { crashPoint } from '@pl/config';
import type { Db } from '@pl/db';
import { currentTraceparent, TRACEPARENT } from '@pl/telemetry';
import type { OutboxEntry } from '../domain/link';

/** The channel the outbox insert notifies on commit, so an idle relay wakes at once instead of at its next poll. */
export const OUTBOX_CHANNEL = 'links_outbox';

interface OutboxRow {
  id: string;
  topic: string;
  message_key: string;
  payload: unknown;
  headers: Record<string, string>;
  traceparent: string | null;
}

/** What is waiting for the relay: the count and the age of the oldest row (0 when none). */
export interface OutboxBacklog {
  rows: number;
  oldestAgeSeconds: number;
}

/**
 * Writes an event inside the caller's transaction; the notification is delivered only if it commits.
 * The active trace context is stored with it, so the Kafka message continues the trace that wrote it.
 */
export async function insertOutboxEntry(client: PoolClient, entry: OutboxEntry): Promise<void> {
  // One round trip for the row and its notification: the settle transaction is on the payment path.
  await client.query(
    `WITH entry AS (
       INSERT INTO outbox (id, topic, message_key, payload, headers, traceparent) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6)
       RETURNING message_key
     )
     SELECT pg_notify($7, message_key) FROM entry`,
    [entry.id, entry.topic, entry.key, JSON.stringify(entry.payload), JSON.stringify(entry.headers), currentTraceparent(), OUTBOX_CHANNEL],
  );
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
        `SELECT id, topic, message_key, payload, headers, traceparent FROM outbox
          WHERE published_at IS NULL
          ORDER BY created_at, id
          LIMIT $1
          FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (rows.length === 0) return 0;
      // The stored trace context rides as a header; the relay makes it the parent of its publish span.
      await publish(rows.map((r) => ({ id: r.id, topic: r.topic, key: r.message_key, payload: r.payload, headers: withTrace(r) })));
      crashPoint('links.after-publish-before-mark');
      await client.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1::uuid[])', [rows.map((r) => r.id)]);
      return rows.length;
    });
  }

  /** Unpublished rows and the age of the oldest, read through the partial index of unpublished rows. */
  async backlog(): Promise<OutboxBacklog> {
    const rows = await this.db.query<{ rows: string; oldest_age_seconds: number | null }>(
      `SELECT count(*) AS rows, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS oldest_age_seconds
         FROM outbox WHERE published_at IS NULL`,
    );
    const row = rows[0];
    return { rows: Number(row?.rows ?? 0), oldestAgeSeconds: Math.max(0, row?.oldest_age_seconds ?? 0) };
  }
}

const withTrace = (r: OutboxRow): Record<string, string> => (r.traceparent ? { ...r.headers, [TRACEPARENT]: r.traceparent } : r.headers);
