import { randomUUID } from 'node:crypto';
import { isLive, modeOfLivemode, type Mode } from '@pl/contracts';
import { WriteBatcher, type Db, type DayPartitionedTable } from '@pl/db';
import type {
  AttemptRecord,
  Claim,
  AttemptResult,
  AttemptVerdict,
  ClaimedDelivery,
  ClaimOptions,
  DeliveryEvent,
  DeliveryQueue,
  DeliveryRecord,
  DeliveryStatus,
  DeliveryStore,
  ListFilter,
  ListPage,
  NewTestDelivery,
} from '../domain/delivery';
import type { EventInbox, InboxEvent } from '../domain/payment-event';

interface DeliveryRow {
  id: string;
  seq: string;
  webhook_id: string;
  event: DeliveryEvent;
  merchant_id: string;
  shop_id: string;
  payment_link_id: string | null;
  livemode: boolean;
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

const DELIVERY_COLUMNS = 'id, seq, webhook_id, event, merchant_id, shop_id, payment_link_id, livemode, status, series, attempts_made';

const toAttempt = (r: AttemptRow): AttemptRecord => ({
  series: r.series,
  attempt: r.attempt,
  at: r.at,
  durationMs: r.duration_ms,
  statusCode: r.status_code,
  error: r.error,
});

interface AttemptToRecord {
  claim: ClaimedDelivery;
  endpoint: string | null;
  result: AttemptResult;
  verdict: AttemptVerdict;
}

/** A month of deliveries stays while one of them is pending (a resend of an old one, its series not yet over). */
const HOLD_DELIVERIES = `SELECT 1 FROM deliveries WHERE status = 'pending' AND created_at < $1
                          AND created_at >= date_trunc('month', $1::timestamptz - interval '1 day', 'UTC') LIMIT 1`;
/** A month of attempts stays while a delivery created before its end is pending: the month may hold its attempts. */
const HOLD_ATTEMPTS = `SELECT 1 FROM deliveries WHERE status = 'pending' AND created_at < $1 LIMIT 1`;

/**
 * Deliveries by month of their creation, attempts by month of their time, both kept `retentionDays` past their
 * month's end. Months, not days: a page of the delivery log reads every partition (its order, seq, is not the
 * partition key), so they must stay few. An attempt's month can outlive its delivery's: nothing reads it then.
 */
export const deliveryPartitions = (retentionDays: number): DayPartitionedTable[] => [
  { table: 'deliveries', unit: 'month', retentionDays, holdWhile: HOLD_DELIVERIES },
  { table: 'delivery_attempts', unit: 'month', retentionDays, holdWhile: HOLD_ATTEMPTS },
];

/** Most attempts recorded by one statement. */
const RECORD_BATCH = 200;
/** Most Kafka slices (each up to the subscriber's slice size) stored by one statement. */
const STORE_BATCH = 16;

/** The notifier's tables: received events, deliveries and their attempts. */
export class DeliveryRepository implements EventInbox, DeliveryStore, DeliveryQueue {
  private readonly attempts = new WriteBatcher<AttemptToRecord, number>((items) => this.recordAttempts(items), RECORD_BATCH);
  private readonly slices = new WriteBatcher<readonly InboxEvent[], Set<string>>((slices) => this.storeSlices(slices), STORE_BATCH);

  constructor(private readonly db: Db) {}

  /** Slices stored at about the same time (the partitions of one fetch) share one statement. */
  storeAll(items: readonly InboxEvent[]): Promise<Set<string>> {
    return items.length === 0 ? Promise.resolve(new Set()) : this.slices.add(items);
  }

  /** The ids of the deliveries created, for every slice alike. */
  private async storeSlices(slices: (readonly InboxEvent[])[]): Promise<Set<string>[]> {
    // An event in two slices (a republished copy) is stored once, with the first slice's delivery.
    const seen = new Set<string>();
    const items = slices.flat().filter((i) => !seen.has(i.event.event_id) && seen.add(i.event.event_id));
    // One statement for all of them, so it is atomic without a transaction: the inbox takes the events it
    // has not seen (a copy of one carries its occurred_at, so it meets the first in the same day's partition), and exactly those of them that have a delivery get it (in the order they came, which `seq`
    // keeps). A delivery with a claim is stored leased to it, as a claim of the worker would leave it.
    const rows = await this.db.query<{ id: string }>(
      `WITH slice AS (
         SELECT * FROM unnest($1::uuid[], $2::jsonb[], $3::uuid[], $4::text[], $5::text[], $6::uuid[], $7::bigint[], $8::uuid[], $9::bytea[], $10::text[],
                              $11::uuid[], $12::double precision[], $13::boolean[], $14::timestamptz[])
           WITH ORDINALITY AS s(event_id, payload, id, webhook_id, event, merchant_id, shop_id, payment_link_id, body, traceparent,
                                lease_token, lease_ms, livemode, occurred_at, ord)
       ), taken AS (
         INSERT INTO inbox_events (event_id, payload, type, merchant_id, shop_id, payment_link_id, livemode, occurred_at, body)
         SELECT event_id, payload, event, merchant_id, shop_id, payment_link_id, livemode, occurred_at, body FROM slice ORDER BY ord
         ON CONFLICT (event_id, occurred_at) DO NOTHING
         RETURNING event_id
       )
       INSERT INTO deliveries (id, event_id, webhook_id, event, merchant_id, shop_id, payment_link_id, livemode, body, traceparent,
                               next_attempt_at, lease_until, lease_token)
       SELECT s.id, s.event_id, s.webhook_id, s.event, s.merchant_id, s.shop_id, s.payment_link_id, s.livemode, s.body, s.traceparent,
              now() + COALESCE(s.lease_ms, 0) * interval '1 millisecond',
              CASE WHEN s.lease_token IS NOT NULL THEN now() + s.lease_ms * interval '1 millisecond' END,
              s.lease_token
         FROM slice s JOIN taken USING (event_id)
        WHERE s.id IS NOT NULL
        ORDER BY s.ord
       RETURNING id`,
      [
        items.map((i) => i.event.event_id),
        items.map((i) => JSON.stringify(i.event)),
        items.map((i) => i.delivery?.id ?? null),
        items.map((i) => i.delivery?.webhookId ?? null),
        items.map((i) => i.event.event),
        items.map((i) => i.event.merchant_id),
        items.map((i) => String(i.shopId)),
        items.map((i) => i.paymentLinkId),
        items.map((i) => i.body),
        items.map((i) => i.delivery?.traceparent ?? null),
        items.map((i) => i.delivery?.claim?.leaseToken ?? null),
        items.map((i) => i.delivery?.claim?.leaseMs ?? null),
        items.map((i) => i.event.livemode),
        items.map((i) => i.event.occurred_at),
      ],
    );
    const created = new Set(rows.map((r) => r.id));
    return slices.map(() => created);
  }

  /** The rows with the newest `shown` attempts of each (oldest first) and the count of the older ones. */
  private async withAttempts(rows: DeliveryRow[], shown: number): Promise<DeliveryRecord[]> {
    if (rows.length === 0) return [];
    // Read through the primary key (delivery_id first); only the newest `shown` per delivery leave the database.
    const attempts = await this.db.query<AttemptRow & { total: number }>(
      `SELECT delivery_id, series, attempt, at, duration_ms, status_code, error, total FROM (
         SELECT delivery_id, series, attempt, at, duration_ms, status_code, error,
                row_number() OVER (PARTITION BY delivery_id ORDER BY at DESC, series DESC, attempt DESC) AS newest,
                count(*) OVER (PARTITION BY delivery_id)::int AS total
           FROM delivery_attempts WHERE delivery_id = ANY($1::uuid[])
       ) a
       WHERE newest <= $2
       ORDER BY at, series, attempt`,
      [rows.map((r) => r.id), shown],
    );
    return rows.map((r) => {
      const own = attempts.filter((a) => a.delivery_id === r.id);
      return {
        id: r.id,
        seq: BigInt(r.seq),
        webhookId: r.webhook_id,
        event: r.event,
        merchantId: r.merchant_id,
        shopId: Number(r.shop_id),
        paymentLinkId: r.payment_link_id,
        livemode: r.livemode,
        status: r.status,
        series: r.series,
        attemptsMade: r.attempts_made,
        attempts: own.map(toAttempt),
        attemptsOmitted: (own[0]?.total ?? 0) - own.length,
      };
    });
  }

  async findById(mode: Mode, id: string, attemptsShown: number): Promise<DeliveryRecord | null> {
    const rows = await this.db.query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE id = $1 AND livemode = $2`, [id, isLive(mode)]);
    return (await this.withAttempts(rows, attemptsShown))[0] ?? null;
  }

  async linkOwner(mode: Mode, paymentLinkId: string): Promise<{ merchantId: string; shopId: number } | null> {
    const rows = await this.db.query<{ merchant_id: string; shop_id: string }>(
      'SELECT merchant_id, shop_id FROM deliveries WHERE payment_link_id = $1 AND livemode = $2 LIMIT 1',
      [paymentLinkId, isLive(mode)],
    );
    const row = rows[0];
    return row ? { merchantId: row.merchant_id, shopId: Number(row.shop_id) } : null;
  }

  async list(f: ListFilter): Promise<ListPage> {
    // Only the filters given are in the statement: each combination is its own fixed text (prepared once), and
    // its plan reads the index that fits (by merchant and mode, the same with shop or with status, by link). The
    // operators' list of both modes reads the merchant's deliveries in both and sorts them (a rare, paged look).
    const params: unknown[] = [f.merchantId];
    const where = ['merchant_id = $1'];
    const add = (column: string, value: unknown): void => {
      params.push(value);
      where.push(`${column} = $${params.length}`);
    };
    if (f.mode !== null) add('livemode', isLive(f.mode));
    if (f.shopId !== null) add('shop_id', f.shopId);
    if (f.paymentLinkId !== null) add('payment_link_id', f.paymentLinkId);
    if (f.status !== null) add('status', f.status);
    if (f.beforeSeq !== null) {
      params.push(f.beforeSeq.toString());
      where.push(`seq < $${params.length}`);
    }
    params.push(f.limit + 1);
    const rows = await this.db.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${params.length}`,
      params,
    );
    return { items: await this.withAttempts(rows.slice(0, f.limit), f.attemptsShown), hasMore: rows.length > f.limit };
  }

  async addTestDelivery(d: NewTestDelivery): Promise<void> {
    await this.db.query(
      `INSERT INTO deliveries (id, event_id, webhook_id, event, merchant_id, shop_id, payment_link_id, livemode, body, next_attempt_at)
       VALUES ($1, NULL, $2, 'webhook.test', $3, $4, NULL, $5, $6, now())`,
      [d.id, d.webhookId, d.merchantId, d.shopId, isLive(d.mode), d.body],
    );
  }

  async restartSeries(mode: Mode, id: string): Promise<void> {
    // Clearing the lease orphans an attempt in flight: its result is still logged under the old series.
    await this.db.query(
      `UPDATE deliveries SET series = series + 1, attempts_made = 0, status = 'pending', next_attempt_at = now(),
              lease_until = NULL, lease_token = NULL, updated_at = now()
        WHERE id = $1 AND livemode = $2`,
      [id, isLive(mode)],
    );
  }

  async claimDue(o: ClaimOptions): Promise<Claim> {
    const token = randomUUID();
    const shopIds: string[] = [];
    const endpointOfShop: number[] = [];
    o.endpoints.forEach((e, i) => {
      for (const shopId of e.shopIds) {
        shopIds.push(String(shopId));
        endpointOfShop.push(i + 1);
      }
    });
    // One statement (a claim is on every delivery's path). Locked rows are another worker's claim in progress,
    // leased rows another worker's attempt. Of the due rows read, each endpoint gets as many as it has room
    // for (a shop of no known endpoint is its own, with `perEndpoint` room), oldest due first. The claim also
    // moves a row's due time to the end of its lease: rows in flight leave the due part of the index, so the
    // next claim does not walk past them, and a crashed worker's row is due again when its lease ends.
    const rows = await this.db.query<{
      seen: number;
      id: string | null;
      webhook_id: string;
      event: string;
      shop_id: string;
      body: Buffer;
      series: number;
      attempts_made: number;
      traceparent: string | null;
      livemode: boolean;
    }>(
      `WITH due AS (
         SELECT id, shop_id, next_attempt_at, seq FROM deliveries
          WHERE status = 'pending' AND next_attempt_at <= now()
            AND (lease_until IS NULL OR lease_until < now())
            AND NOT (shop_id = ANY($2::bigint[]))
          ORDER BY next_attempt_at, seq
          LIMIT $1
          FOR UPDATE SKIP LOCKED
       ), ranked AS (
         SELECT due.id, due.next_attempt_at, due.seq, COALESCE(room.slots, $6) AS slots,
                row_number() OVER (PARTITION BY COALESCE(shop.endpoint, -due.shop_id) ORDER BY due.next_attempt_at, due.seq) AS nth
           FROM due
           LEFT JOIN unnest($3::bigint[], $4::bigint[]) AS shop(shop_id, endpoint) ON shop.shop_id = due.shop_id
           LEFT JOIN unnest($5::int[]) WITH ORDINALITY AS room(slots, endpoint) ON room.endpoint = shop.endpoint
       ), picked AS (
         SELECT id FROM ranked WHERE nth <= slots ORDER BY next_attempt_at, seq LIMIT $7
       ), claimed AS (
         -- By primary key (a join with the few picked rows may be planned as a scan of the whole table).
         UPDATE deliveries d
            SET lease_until = now() + $8::double precision * interval '1 millisecond', lease_token = $9,
                next_attempt_at = now() + $8::double precision * interval '1 millisecond'
          WHERE d.id = ANY (ARRAY(SELECT id FROM picked))
         RETURNING d.id, d.webhook_id, d.event, d.shop_id, d.body, d.series, d.attempts_made, d.traceparent, d.livemode
       )
       SELECT (SELECT count(*)::int FROM due) AS seen, claimed.* FROM (VALUES (1)) AS one (x) LEFT JOIN claimed ON true`,
      [
        Math.min(o.limit * 4, 1000),
        o.excludeShops.map(String),
        shopIds,
        endpointOfShop,
        o.endpoints.map((e) => e.room),
        o.perEndpoint,
        o.limit,
        o.leaseMs,
        token,
      ],
    );
    const claims: ClaimedDelivery[] = [];
    for (const r of rows) {
      if (r.id === null) continue;
      claims.push({
        id: r.id,
        webhookId: r.webhook_id,
        event: r.event,
        shopId: Number(r.shop_id),
        body: r.body,
        series: r.series,
        attempt: r.attempts_made + 1,
        leaseToken: token,
        traceparent: r.traceparent,
        mode: modeOfLivemode(r.livemode),
      });
    }
    return { claims, seen: rows[0]?.seen ?? 0 };
  }

  /**
   * Attempts finishing at about the same time are recorded together (see WriteBatcher): one statement per
   * batch, atomic on its own, so a slot is freed after one round trip however many attempts end at once.
   */
  recordAttempt(claim: ClaimedDelivery, endpoint: string | null, result: AttemptResult, verdict: AttemptVerdict): Promise<number> {
    return this.attempts.add({ claim, endpoint, result, verdict });
  }

  /**
   * For each attempt: its row, the move of its delivery (only while the claim holds: a resend (new series) or
   * an expired lease taken over wins) and, after a 2xx, the bring-forward of its endpoint's waiting deliveries
   * (not those in flight: their own attempt decides). Returns, per attempt, how many its endpoint brought forward.
   */
  private async recordAttempts(items: AttemptToRecord[]): Promise<number[]> {
    const rows = await this.db.query<{ endpoint: string; brought_forward: number }>(
      `WITH done AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::int[], $5::timestamptz[], $6::int[], $7::int[], $8::text[],
                              $9::bytea[], $10::text[], $11::text[], $12::timestamptz[], $13::boolean[])
           AS t(id, lease_token, series, attempt, at, duration_ms, status_code, error, response_head, endpoint, status, next_attempt_at, recovered)
       ), attempts AS (
         INSERT INTO delivery_attempts (delivery_id, series, attempt, at, duration_ms, status_code, error, response_head, endpoint)
         SELECT id, series, attempt, at, duration_ms, status_code, error, response_head, endpoint FROM done
         ON CONFLICT DO NOTHING
       ), moved AS (
         UPDATE deliveries d SET attempts_made = done.attempt, status = done.status, next_attempt_at = done.next_attempt_at,
                endpoint = COALESCE(done.endpoint, d.endpoint), lease_until = NULL, lease_token = NULL, updated_at = now()
           FROM done
          WHERE d.id = ANY ($1::uuid[]) AND d.id = done.id AND d.lease_token = done.lease_token
       ), forward AS (
         UPDATE deliveries d SET next_attempt_at = now(), updated_at = now()
          WHERE d.endpoint IN (SELECT endpoint FROM done WHERE recovered)
            AND d.status = 'pending' AND d.attempts_made > 0 AND d.next_attempt_at > now()
            AND (d.lease_until IS NULL OR d.lease_until < now()) AND NOT (d.id = ANY ($1::uuid[]))
         RETURNING d.endpoint
       )
       SELECT endpoint, count(*)::int AS brought_forward FROM forward GROUP BY endpoint`,
      [
        items.map((i) => i.claim.id),
        items.map((i) => i.claim.leaseToken),
        items.map((i) => i.claim.series),
        items.map((i) => i.claim.attempt),
        items.map((i) => i.result.at),
        items.map((i) => i.result.durationMs),
        items.map((i) => i.result.statusCode),
        items.map((i) => i.result.error),
        items.map((i) => i.result.responseHead),
        items.map((i) => i.endpoint),
        items.map((i) => i.verdict.status),
        items.map((i) => (i.verdict.status === 'pending' ? i.verdict.nextAttemptAt : null)),
        items.map((i) => i.result.ok && i.endpoint !== null),
      ],
    );
    const forwarded = new Map(rows.map((r) => [r.endpoint, r.brought_forward]));
    return items.map((i) => (i.result.ok && i.endpoint !== null ? (forwarded.get(i.endpoint) ?? 0) : 0));
  }

  async release(claim: ClaimedDelivery, retryInMs: number): Promise<void> {
    // The claim moved the due time to the lease's end; handing back sets it from now.
    await this.db.query(
      `UPDATE deliveries SET lease_until = NULL, lease_token = NULL,
              next_attempt_at = now() + $3::double precision * interval '1 millisecond'
        WHERE id = $1 AND lease_token = $2`,
      [claim.id, claim.leaseToken, retryInMs],
    );
  }

  /**
   * Deliveries waiting for an attempt, per mode: due now and scheduled later (read through the partial index). A
   * delivery in flight counts as scheduled (its due time is its lease's end).
   */
  async queueDepth(): Promise<Record<Mode, { due: number; scheduled: number }>> {
    const rows = await this.db.query<{ livemode: boolean; due: string; scheduled: string }>(
      `SELECT livemode, count(*) FILTER (WHERE next_attempt_at <= now()) AS due, count(*) FILTER (WHERE next_attempt_at > now()) AS scheduled
         FROM deliveries WHERE status = 'pending' GROUP BY livemode`,
    );
    const depth = { live: { due: 0, scheduled: 0 }, test: { due: 0, scheduled: 0 } };
    for (const r of rows) depth[modeOfLivemode(r.livemode)] = { due: Number(r.due), scheduled: Number(r.scheduled) };
    return depth;
  }
}
