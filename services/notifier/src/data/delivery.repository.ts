import { randomUUID } from 'node:crypto';
import type { PaymentSucceededEvent } from '@pl/contracts';
import type { Db } from '@pl/db';
import { currentTraceparent } from '@pl/telemetry';
import type {
  AttemptRecord,
  AttemptResult,
  AttemptVerdict,
  ClaimedDelivery,
  ClaimOptions,
  DeliveryQueue,
  DeliveryRecord,
  DeliveryStatus,
  DeliveryStore,
  ListFilter,
  ListPage,
} from '../domain/delivery';
import type { EventInbox, NewDelivery } from '../domain/payment-event';

interface DeliveryRow {
  id: string;
  seq: string;
  webhook_id: string;
  merchant_id: string;
  shop_id: string;
  payment_link_id: string;
  status: DeliveryStatus;
  series: number;
  attempts_made: number;
}

interface AttemptRow {
  delivery_id: string;
  series: number;
  attempt: number;
  at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

const DELIVERY_COLUMNS = 'id, seq, webhook_id, merchant_id, shop_id, payment_link_id, status, series, attempts_made';

const toAttempt = (r: AttemptRow): AttemptRecord => ({
  series: r.series,
  attempt: r.attempt,
  at: r.at,
  durationMs: r.duration_ms,
  statusCode: r.status_code,
  error: r.error,
});

/** The notifier's tables: received events, deliveries and their attempts. */
export class DeliveryRepository implements EventInbox, DeliveryStore, DeliveryQueue {
  constructor(private readonly db: Db) {}

  async store(event: PaymentSucceededEvent, d: NewDelivery): Promise<boolean> {
    return this.db.transaction(async (c) => {
      const inserted = await c.query('INSERT INTO inbox_events (event_id, payload) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING', [
        event.event_id,
        JSON.stringify(event),
      ]);
      if (inserted.rowCount === 0) return false;
      await c.query(
        `INSERT INTO deliveries (id, event_id, webhook_id, event, merchant_id, shop_id, payment_link_id, body, next_attempt_at, traceparent)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now(), $9)`,
        // The active context is the consumer span of the Kafka message: the attempts continue its trace.
        [d.id, d.eventId, d.webhookId, d.event, d.merchantId, d.shopId, d.paymentLinkId, d.body, currentTraceparent()],
      );
      return true;
    });
  }

  private async withAttempts(rows: DeliveryRow[]): Promise<DeliveryRecord[]> {
    if (rows.length === 0) return [];
    const attempts = await this.db.query<AttemptRow>(
      `SELECT delivery_id, series, attempt, at, duration_ms, status_code, error FROM delivery_attempts
        WHERE delivery_id = ANY($1::uuid[]) ORDER BY at, series, attempt`,
      [rows.map((r) => r.id)],
    );
    return rows.map((r) => ({
      id: r.id,
      seq: BigInt(r.seq),
      webhookId: r.webhook_id,
      event: 'payment.succeeded',
      merchantId: r.merchant_id,
      shopId: Number(r.shop_id),
      paymentLinkId: r.payment_link_id,
      status: r.status,
      series: r.series,
      attemptsMade: r.attempts_made,
      attempts: attempts.filter((a) => a.delivery_id === r.id).map(toAttempt),
    }));
  }

  async findById(id: string): Promise<DeliveryRecord | null> {
    const rows = await this.db.query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE id = $1`, [id]);
    return (await this.withAttempts(rows))[0] ?? null;
  }

  async linkOwner(paymentLinkId: string): Promise<{ merchantId: string; shopId: number } | null> {
    const rows = await this.db.query<{ merchant_id: string; shop_id: string }>(
      'SELECT merchant_id, shop_id FROM deliveries WHERE payment_link_id = $1 LIMIT 1',
      [paymentLinkId],
    );
    const row = rows[0];
    return row ? { merchantId: row.merchant_id, shopId: Number(row.shop_id) } : null;
  }

  async list(f: ListFilter): Promise<ListPage> {
    const rows = await this.db.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM deliveries
        WHERE merchant_id = $1
          AND ($2::bigint IS NULL OR shop_id = $2)
          AND ($3::uuid IS NULL OR payment_link_id = $3)
          AND ($4::bigint IS NULL OR seq < $4)
        ORDER BY seq DESC LIMIT $5`,
      [f.merchantId, f.shopId, f.paymentLinkId, f.beforeSeq?.toString() ?? null, f.limit + 1],
    );
    return { items: await this.withAttempts(rows.slice(0, f.limit)), hasMore: rows.length > f.limit };
  }

  async restartSeries(id: string): Promise<void> {
    // Clearing the lease orphans an attempt in flight: its result is still logged under the old series.
    await this.db.query(
      `UPDATE deliveries SET series = series + 1, attempts_made = 0, status = 'pending', next_attempt_at = now(),
              lease_until = NULL, lease_token = NULL, updated_at = now()
        WHERE id = $1`,
      [id],
    );
  }

  async claimDue(o: ClaimOptions): Promise<ClaimedDelivery[]> {
    const token = randomUUID();
    return this.db.transaction(async (c) => {
      // Locked rows are another worker's claim in progress; leased rows are another worker's attempt.
      const due = await c.query<{ id: string; shop_id: string }>(
        `SELECT id, shop_id FROM deliveries
          WHERE status = 'pending' AND next_attempt_at <= now()
            AND (lease_until IS NULL OR lease_until < now())
            AND NOT (shop_id = ANY($2::bigint[]))
          ORDER BY next_attempt_at
          LIMIT $1
          FOR UPDATE SKIP LOCKED`,
        [Math.min(o.limit * 4, 1000), o.excludeShops],
      );
      const ids = o.choose(due.rows.map((r) => ({ id: r.id, shopId: Number(r.shop_id) })));
      if (ids.length === 0) return [];
      const claimed = await c.query<{
        id: string;
        webhook_id: string;
        event: string;
        shop_id: string;
        body: Buffer;
        series: number;
        attempts_made: number;
        traceparent: string | null;
      }>(
        `UPDATE deliveries SET lease_until = now() + $2::double precision * interval '1 millisecond', lease_token = $3
          WHERE id = ANY($1::uuid[])
          RETURNING id, webhook_id, event, shop_id, body, series, attempts_made, traceparent`,
        [ids, o.leaseMs, token],
      );
      return claimed.rows.map((r) => ({
        id: r.id,
        webhookId: r.webhook_id,
        event: r.event,
        shopId: Number(r.shop_id),
        body: r.body,
        series: r.series,
        attempt: r.attempts_made + 1,
        leaseToken: token,
        traceparent: r.traceparent,
      }));
    });
  }

  async recordAttempt(claim: ClaimedDelivery, endpoint: string | null, r: AttemptResult, verdict: AttemptVerdict): Promise<void> {
    await this.db.transaction(async (c) => {
      await c.query(
        `INSERT INTO delivery_attempts (delivery_id, series, attempt, at, duration_ms, status_code, error, response_head, endpoint)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
        [claim.id, claim.series, claim.attempt, r.at, r.durationMs, r.statusCode, r.error, r.responseHead, endpoint],
      );
      // Only while the claim holds: a resend (new series) or an expired lease taken over wins.
      await c.query(
        `UPDATE deliveries SET attempts_made = $3, status = $4, next_attempt_at = $5, endpoint = COALESCE($6, endpoint),
                lease_until = NULL, lease_token = NULL, updated_at = now()
          WHERE id = $1 AND lease_token = $2`,
        [claim.id, claim.leaseToken, claim.attempt, verdict.status, verdict.status === 'pending' ? verdict.nextAttemptAt : null, endpoint],
      );
    });
  }

  async release(claim: ClaimedDelivery, retryInMs: number): Promise<void> {
    await this.db.query(
      `UPDATE deliveries SET lease_until = NULL, lease_token = NULL,
              next_attempt_at = GREATEST(next_attempt_at, now() + $3::double precision * interval '1 millisecond')
        WHERE id = $1 AND lease_token = $2`,
      [claim.id, claim.leaseToken, retryInMs],
    );
  }

  /** Deliveries waiting for an attempt: due now and scheduled later (read through the partial index). */
  async queueDepth(): Promise<{ due: number; scheduled: number }> {
    const rows = await this.db.query<{ due: string; scheduled: string }>(
      `SELECT count(*) FILTER (WHERE next_attempt_at <= now()) AS due, count(*) FILTER (WHERE next_attempt_at > now()) AS scheduled
         FROM deliveries WHERE status = 'pending'`,
    );
    return { due: Number(rows[0]?.due ?? 0), scheduled: Number(rows[0]?.scheduled ?? 0) };
  }

  async bringForward(endpoint: string): Promise<number> {
    const rows = await this.db.query(
      `UPDATE deliveries SET next_attempt_at = now(), updated_at = now()
        WHERE status = 'pending' AND attempts_made > 0 AND endpoint = $1 AND next_attempt_at > now()
        RETURNING id`,
      [endpoint],
    );
    return rows.length;
  }
}
