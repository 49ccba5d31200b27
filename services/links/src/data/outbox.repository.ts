import type { PoolClient } from 'pg';
import type { DayPartitionedTable, Db } from '@pl/db';
import { currentTraceparent, TRACEPARENT } from '@pl/telemetry';
import type { OutboxEntry } from '../domain/link';

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

/** The columns of an outbox row, in the order of {@link outboxValues}. */
export const OUTBOX_COLUMNS = 'id, topic, message_key, payload, headers, traceparent';

/**
 * An event's row, as parameters for {@link OUTBOX_COLUMNS}. The active trace context is stored with it,
 * so the Kafka message continues the trace that wrote it.
 */
export const outboxValues = (entry: OutboxEntry): unknown[] => [
  entry.id,
  entry.topic,
  entry.key,
  JSON.stringify(entry.payload),
  JSON.stringify(entry.headers),
  currentTraceparent(),
];

/** Writes an event inside the caller's transaction; the table's trigger queues it for the relay in the same one. */
export async function insertOutboxEntry(client: PoolClient, entry: OutboxEntry): Promise<void> {
  await client.query(`INSERT INTO outbox (${OUTBOX_COLUMNS}) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6)`, outboxValues(entry));
}

/**
 * Writes events inside the caller's transaction, all in one statement (the sweeper's batch writes one per link it
 * expired). Returns the trace context stored with them, for the hand-over to the relay after the commit.
 */
export async function insertOutboxEntries(client: PoolClient, entries: readonly OutboxEntry[]): Promise<string | null> {
  const traceparent = currentTraceparent();
  if (entries.length === 0) return traceparent;
  await client.query(
    `INSERT INTO outbox (${OUTBOX_COLUMNS})
     SELECT id, topic, message_key, payload, headers, $6 FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[])
       AS e (id, topic, message_key, payload, headers)`,
    [
      entries.map((e) => e.id),
      entries.map((e) => e.topic),
      entries.map((e) => e.key),
      entries.map((e) => JSON.stringify(e.payload)),
      entries.map((e) => JSON.stringify(e.headers)),
      traceparent,
    ],
  );
  return traceparent;
}

/**
 * The outbox record's day partitions: a day goes once its events are `retentionDays` old, but never while one of
 * them is still queued (Kafka down for longer than the retention): the queue's ids must find their record.
 */
export const outboxPartitions = (retentionDays: number): DayPartitionedTable => ({
  table: 'outbox',
  retentionDays,
  holdWhile: 'SELECT 1 FROM outbox_pending WHERE created_at < $1 LIMIT 1',
});

/** A claimed batch: published by `publish`, then marked, all while the rows stay locked. */
export type BatchPublisher = (entries: OutboxEntry[]) => Promise<void>;

export class OutboxRepository {
  constructor(private readonly db: Db) {}

  /**
   * Claims up to `limit` queued events written at least `olderThanMs` ago (oldest first, skipping those another
   * relay holds), hands them to `publish` and takes them off the queue in the same transaction. If `publish`
   * throws, or the process dies before the commit, they stay queued and come again: at-least-once, never lost.
   * The record itself is never touched. Returns how many were published.
   */
  publishBatch(limit: number, olderThanMs: number, publish: BatchPublisher): Promise<number> {
    return this.db.transaction(async (client) => {
      const { rows } = await client.query<OutboxRow>(
        `SELECT o.id, o.topic, o.message_key, o.payload, o.headers, o.traceparent
           FROM (SELECT id, created_at FROM outbox_pending
                  WHERE created_at < now() - $2::double precision * interval '1 millisecond'
                  ORDER BY created_at, id
                  LIMIT $1
                  FOR UPDATE SKIP LOCKED) p
           JOIN outbox o ON o.id = p.id AND o.created_at = p.created_at
          ORDER BY p.created_at, p.id`,
        [limit, olderThanMs],
      );
      if (rows.length === 0) return 0;
      // The stored trace context rides as a header; the relay makes it the parent of its publish span.
      await publish(rows.map((r) => ({ id: r.id, topic: r.topic, key: r.message_key, payload: r.payload, headers: withTrace(r) })));
      await client.query('DELETE FROM outbox_pending WHERE id = ANY($1::uuid[])', [rows.map((r) => r.id)]);
      return rows.length;
    });
  }

  /** Takes events off the queue that were published from memory (nothing was claimed for them). */
  async markPublished(ids: string[]): Promise<void> {
    await this.db.query('DELETE FROM outbox_pending WHERE id = ANY($1::uuid[])', [ids]);
  }

  /** Queued events and the age of the oldest. */
  async backlog(): Promise<OutboxBacklog> {
    const rows = await this.db.query<{ rows: string; oldest_age_seconds: number | null }>(
      `SELECT count(*) AS rows, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS oldest_age_seconds FROM outbox_pending`,
    );
    const row = rows[0];
    return { rows: Number(row?.rows ?? 0), oldestAgeSeconds: Math.max(0, row?.oldest_age_seconds ?? 0) };
  }
}

const withTrace = (r: OutboxRow): Record<string, string> => (r.traceparent ? { ...r.headers, [TRACEPARENT]: r.traceparent } : r.headers);

/** An event as its row holds it, trace context included, for publishing straight from memory after its commit. */
export function committedEntry(entry: OutboxEntry, traceparent: string | null): OutboxEntry {
  return traceparent ? { ...entry, headers: { ...entry.headers, [TRACEPARENT]: traceparent } } : entry;
}
