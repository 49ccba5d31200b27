import type { LinkStatus } from '@pl/contracts';
import type { Db } from '@pl/db';
import type { AttemptState } from '../domain/attempt';
import { type StatusSyncStore, type SyncAttempt, type SyncRefund, type SyncSchedule } from '../domain/status-sync-store';

/** pg hands bigint back as text; kopecks stay far below 2^53. */
interface SyncAttemptRow {
  link_id: string;
  n: number;
  order_id: string;
  provider: string;
  state: AttemptState;
  gateway_payment_id: string | null;
  payer_amount: string;
  link_status: LinkStatus;
  expires_at: Date;
  provider_canceled_at: Date | null;
  created_at: Date;
}

interface SyncRefundRow {
  id: string;
  payment_link_id: string;
  provider: string;
  amount: string;
  destination: string | null;
  reason: string | null;
  gateway_refund_id: string | null;
  link_amount: string;
  link_gateway_payment_id: string | null;
  expires_at: Date;
  order_id: string;
  other_refunds: string;
  created_at: Date;
}

/** Attempts sync reads: not final on our side (a superseded one may still be paid at its provider), at a real provider. */
const SYNCED_STATES = `('creating', 'pending', 'unknown', 'superseded')`;
/** The sandbox is not read: its payments are the test simulator's and the demo's, settled by its own callbacks. */
const REAL_PROVIDER = `provider <> 'sandbox'`;

const ATTEMPT_COLUMNS = `a.link_id, a.n, a.order_id, a.provider, a.state, a.gateway_payment_id, a.payer_amount, l.status AS link_status,
  l.expires_at, a.provider_canceled_at, a.created_at`;
const REFUND_COLUMNS = `r.id, r.payment_link_id, r.provider, r.amount, r.destination, r.reason, r.gateway_refund_id, l.amount AS link_amount,
  COALESCE((SELECT lp.gateway_payment_id FROM unresolved_payments lp WHERE lp.id = r.late_payment_id), l.gateway_payment_id) AS link_gateway_payment_id, l.expires_at, r.created_at,
  (SELECT count(*) FROM refunds o WHERE o.payment_link_id = r.payment_link_id AND o.id <> r.id) AS other_refunds,
  COALESCE((SELECT p.order_id FROM payment_attempts p WHERE p.link_id = l.id AND p.state = 'paid' ORDER BY p.n DESC LIMIT 1), l.id::text) AS order_id`;

const toAttempt = (r: SyncAttemptRow): SyncAttempt => ({
  linkId: r.link_id,
  n: r.n,
  orderId: r.order_id,
  provider: r.provider,
  state: r.state,
  gatewayPaymentId: r.gateway_payment_id,
  payerAmount: Number(r.payer_amount),
  linkStatus: r.link_status,
  linkExpiresAt: r.expires_at,
  providerCanceledAt: r.provider_canceled_at,
  createdAt: r.created_at,
});

const toRefund = (r: SyncRefundRow): SyncRefund => ({
  id: r.id,
  paymentLinkId: r.payment_link_id,
  provider: r.provider,
  amount: Number(r.amount),
  destination: r.destination,
  reason: r.reason,
  gatewayRefundId: r.gateway_refund_id,
  linkAmount: Number(r.link_amount),
  linkGatewayPaymentId: r.link_gateway_payment_id,
  linkExpiresAt: r.expires_at,
  orderId: r.order_id,
  otherRefunds: Number(r.other_refunds),
  createdAt: r.created_at,
});

/** Milliseconds as a Postgres interval parameter. */
const ms = (value: number): string => `${value} milliseconds`;

/** What unfinished attempts a provider has, for the operators' gauge and alert ("unfinished attempts by age"). */
export interface UnfinishedAttempts {
  provider: string;
  count: number;
  /** Age of the oldest, in seconds. */
  oldestAgeSeconds: number;
  /** How long past its link's expiry the most overdue one is, in seconds (0 when none is past it). */
  mostPastExpirySeconds: number;
}

export class StatusSyncRepository implements StatusSyncStore {
  constructor(private readonly db: Db) {}

  async claimDueAttempts(schedule: SyncSchedule, limit: number): Promise<SyncAttempt[]> {
    // Due: read before (COALESCE(sync_due_at, created_at) <= now()), and past the first delay if never read. The claim
    // moves the next read one interval on in the same statement: the row lock lasts this statement only.
    const rows = await this.db.query<SyncAttemptRow>(
      `WITH due AS (
         SELECT a.link_id, a.n FROM payment_attempts a
          WHERE a.state IN ${SYNCED_STATES} AND a.${REAL_PROVIDER}
            AND COALESCE(a.sync_due_at, a.created_at) <= now()
            AND (a.sync_due_at IS NOT NULL OR a.created_at <= now() - $1::interval)
          ORDER BY COALESCE(a.sync_due_at, a.created_at)
          LIMIT $3
          FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE payment_attempts a SET sync_due_at = now() + $2::interval FROM due WHERE a.link_id = due.link_id AND a.n = due.n
         RETURNING a.*
       )
       SELECT ${ATTEMPT_COLUMNS} FROM claimed a JOIN payment_links l ON l.id = a.link_id`,
      [ms(schedule.firstDelayMs), ms(schedule.intervalMs), limit],
    );
    return rows.map(toAttempt);
  }

  async claimDueRefunds(schedule: SyncSchedule, limit: number): Promise<SyncRefund[]> {
    const rows = await this.db.query<SyncRefundRow>(
      `WITH due AS (
         SELECT r.id FROM refunds r
          WHERE r.status = 'pending' AND r.${REAL_PROVIDER}
            AND COALESCE(r.sync_due_at, r.created_at) <= now()
            AND (r.sync_due_at IS NOT NULL OR r.created_at <= now() - $1::interval)
          ORDER BY COALESCE(r.sync_due_at, r.created_at)
          LIMIT $3
          FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE refunds r SET sync_due_at = now() + $2::interval FROM due WHERE r.id = due.id RETURNING r.*
       )
       SELECT ${REFUND_COLUMNS} FROM claimed r JOIN payment_links l ON l.id = r.payment_link_id`,
      [ms(schedule.firstDelayMs), ms(schedule.intervalMs), limit],
    );
    return rows.map(toRefund);
  }

  async attemptsOfLink(linkId: string): Promise<SyncAttempt[]> {
    const rows = await this.db.query<SyncAttemptRow>(
      `SELECT ${ATTEMPT_COLUMNS} FROM payment_attempts a JOIN payment_links l ON l.id = a.link_id
        WHERE a.link_id = $1 AND a.state IN ${SYNCED_STATES} AND a.${REAL_PROVIDER} ORDER BY a.n`,
      [linkId],
    );
    return rows.map(toAttempt);
  }

  async pendingRefundsOfLink(linkId: string): Promise<SyncRefund[]> {
    const rows = await this.db.query<SyncRefundRow>(
      `SELECT ${REFUND_COLUMNS} FROM refunds r JOIN payment_links l ON l.id = r.payment_link_id
        WHERE r.payment_link_id = $1 AND r.status = 'pending' AND r.${REAL_PROVIDER} ORDER BY r.created_at`,
      [linkId],
    );
    return rows.map(toRefund);
  }

  async attemptRead(attempt: SyncAttempt, done: boolean): Promise<void> {
    await this.db.query(
      `UPDATE payment_attempts SET synced_at = now(), sync_due_at = CASE WHEN $3 THEN 'infinity'::timestamptz ELSE sync_due_at END
        WHERE link_id = $1 AND n = $2`,
      [attempt.linkId, attempt.n, done],
    );
  }

  async refundRead(refund: SyncRefund, done: boolean): Promise<void> {
    await this.db.query(
      `UPDATE refunds SET synced_at = now(), sync_due_at = CASE WHEN $2 THEN 'infinity'::timestamptz ELSE sync_due_at END WHERE id = $1`,
      [refund.id, done],
    );
  }

  async recordFoundPayment(attempt: SyncAttempt, gatewayPaymentId: string): Promise<void> {
    // Nobody was shown this payment (its answer never reached the link): it is read and canceled like a replaced one.
    await this.db.query(
      `UPDATE payment_attempts SET gateway_payment_id = $3,
         state = CASE WHEN state IN ('creating', 'unknown') THEN 'superseded' ELSE state END, updated_at = now()
        WHERE link_id = $1 AND n = $2 AND gateway_payment_id IS NULL`,
      [attempt.linkId, attempt.n, gatewayPaymentId],
    );
  }

  async recordCanceled(attempt: SyncAttempt): Promise<void> {
    await this.db.query(`UPDATE payment_attempts SET provider_canceled_at = now() WHERE link_id = $1 AND n = $2 AND provider_canceled_at IS NULL`, [
      attempt.linkId,
      attempt.n,
    ]);
  }

  async endUnpaid(attempt: SyncAttempt, state: 'ended_unpaid' | 'failed' | 'unknown'): Promise<void> {
    await this.db.query(
      `UPDATE payment_attempts SET state = $3, sync_due_at = 'infinity', updated_at = now()
        WHERE link_id = $1 AND n = $2 AND state IN ('creating', 'pending', 'unknown')`,
      [attempt.linkId, attempt.n, state],
    );
  }

  async stateOf(attempt: SyncAttempt): Promise<{ state: AttemptState; gatewayPaymentId: string | null; linkStatus: LinkStatus } | null> {
    const rows = await this.db.query<{ state: AttemptState; gateway_payment_id: string | null; link_status: LinkStatus }>(
      `SELECT a.state, a.gateway_payment_id, l.status AS link_status FROM payment_attempts a JOIN payment_links l ON l.id = a.link_id WHERE a.link_id = $1 AND a.n = $2`,
      [attempt.linkId, attempt.n],
    );
    const row = rows[0];
    return row ? { state: row.state, gatewayPaymentId: row.gateway_payment_id, linkStatus: row.link_status } : null;
  }

  async refundStatusOf(refundId: string): Promise<string | null> {
    const rows = await this.db.query<{ status: string }>(`SELECT status FROM refunds WHERE id = $1`, [refundId]);
    return rows[0]?.status ?? null;
  }

  /**
   * Attempts at real providers still unfinished (made, or being made, and neither paid, failed nor ended, while status
   * sync still reads them), by provider: how many, the oldest's age and how far past its link's expiry the most overdue
   * one is. The operators' gauge of unfinished attempts by age and its alert (an attempt unfinished 1 hour past its
   * link's expiry) read this.
   */
  async unfinishedAttempts(): Promise<UnfinishedAttempts[]> {
    const rows = await this.db.query<{ provider: string; count: string; oldest_age_s: string; most_past_expiry_s: string }>(
      `SELECT a.provider, count(*) AS count,
              COALESCE(extract(epoch FROM now() - min(a.created_at)), 0)::bigint AS oldest_age_s,
              GREATEST(COALESCE(extract(epoch FROM now() - min(l.expires_at)), 0), 0)::bigint AS most_past_expiry_s
         FROM payment_attempts a JOIN payment_links l ON l.id = a.link_id
        WHERE a.state IN ('creating', 'pending', 'unknown') AND a.${REAL_PROVIDER}
          AND COALESCE(a.sync_due_at, a.created_at) <> 'infinity'
        GROUP BY a.provider`,
    );
    return rows.map((r) => ({
      provider: r.provider,
      count: Number(r.count),
      oldestAgeSeconds: Number(r.oldest_age_s),
      mostPastExpirySeconds: Number(r.most_past_expiry_s),
    }));
  }
}
