import { isLive, type Mode } from '@pl/contracts';
import type { DayPartitionedTable, Db } from '@pl/db';
import type { EventFilter, EventRecord, EventStore } from '../domain/events';

interface EventRow {
  event_id: string;
  seq: string;
  merchant_id: string;
  shop_id: string;
  occurred_us: string;
  body: Buffer;
}

// Microseconds since the epoch, exact (timestamptz's own precision), so a cursor names a position without rounding.
const EVENT_COLUMNS = 'event_id, seq, merchant_id, shop_id, ((extract(epoch FROM occurred_at) * 1000000)::bigint)::text AS occurred_us, body';

const toRecord = (r: EventRow): EventRecord => ({
  eventId: r.event_id,
  seq: BigInt(r.seq),
  merchantId: r.merchant_id,
  shopId: Number(r.shop_id),
  occurredAtUs: BigInt(r.occurred_us),
  body: r.body,
});

/**
 * The recorded events' day partitions: a day goes once its end is `retentionDays` old, but not while a delivery of
 * one of its events is pending (as the row purge kept such an event). The DEFAULT partition is the purge's.
 */
export const eventPartitions = (retentionDays: number): DayPartitionedTable => ({
  table: 'inbox_events',
  retentionDays,
  holdWhile: `SELECT 1 FROM deliveries d JOIN inbox_events e ON e.event_id = d.event_id
               WHERE d.status = 'pending' AND e.occurred_at >= $1::timestamptz - interval '1 day' AND e.occurred_at < $1 LIMIT 1`,
});

/** The recorded events (table inbox_events) as the events API reads them, and the purge of stragglers. */
export class EventRepository implements EventStore {
  constructor(private readonly db: Db) {}

  async list(f: EventFilter): Promise<{ items: EventRecord[]; hasMore: boolean }> {
    // Only the filters given are in the statement: each combination is its own fixed text (prepared once) whose
    // plan reads the index that fits (by merchant and mode, with shop, with type; by link).
    const params: unknown[] = [f.merchantId, isLive(f.mode)];
    const where = ['merchant_id = $1', 'livemode = $2'];
    const add = (column: string, value: unknown): void => {
      params.push(value);
      where.push(`${column} = $${params.length}`);
    };
    if (f.type !== null) add('type', f.type);
    if (f.shopId !== null) add('shop_id', f.shopId);
    if (f.paymentLinkId !== null) add('payment_link_id', f.paymentLinkId);
    if (f.after !== null) {
      params.push(f.after.occurredAtUs.toString(), f.after.seq.toString());
      where.push(`(occurred_at, seq) < (timestamptz 'epoch' + $${params.length - 1}::bigint * interval '1 microsecond', $${params.length}::bigint)`);
    }
    params.push(f.limit + 1);
    const rows = await this.db.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM inbox_events WHERE ${where.join(' AND ')} ORDER BY occurred_at DESC, seq DESC LIMIT $${params.length}`,
      params,
    );
    return { items: rows.slice(0, f.limit).map(toRecord), hasMore: rows.length > f.limit };
  }

  async findById(mode: Mode, eventId: string): Promise<EventRecord | null> {
    const rows = await this.db.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM inbox_events WHERE event_id = $1 AND livemode = $2`, [
      eventId,
      isLive(mode),
    ]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async linkOwner(mode: Mode, paymentLinkId: string): Promise<{ merchantId: string; shopId: number } | null> {
    const rows = await this.db.query<{ merchant_id: string; shop_id: string }>(
      'SELECT merchant_id, shop_id FROM inbox_events WHERE payment_link_id = $1 AND livemode = $2 LIMIT 1',
      [paymentLinkId, isLive(mode)],
    );
    const row = rows[0];
    return row ? { merchantId: row.merchant_id, shopId: Number(row.shop_id) } : null;
  }

  /**
   * Deletes up to `limit` of the oldest events past `retentionDays` from the DEFAULT partition (events that came
   * in after their day's partition was dropped, or before it was made; every other event leaves with its day),
   * except those whose delivery is still pending (a resent one: it keeps its event until it ends). A delivery
   * keeps its body and webhook id without its event. Rows another replica is purging are skipped. Returns how many went.
   */
  async purgeExpired(retentionDays: number, limit: number): Promise<number> {
    const rows = await this.db.query<{ one: number }>(
      `DELETE FROM inbox_events_default
        WHERE event_id IN (SELECT e.event_id FROM inbox_events_default e
                            WHERE e.occurred_at < now() - $1::int * interval '1 day'
                              AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.event_id AND d.status = 'pending')
                            ORDER BY e.occurred_at
                            LIMIT $2
                            FOR UPDATE SKIP LOCKED)
        RETURNING 1 AS one`,
      [retentionDays, limit],
    );
    return rows.length;
  }
}
