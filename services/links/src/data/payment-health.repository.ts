import type { Db } from '@pl/db';

/** Unfinished attempts of one provider and mode: how many, the oldest one's age, and the longest past its link's expiry. */
export interface UnfinishedAttempts {
  readonly provider: string;
  readonly mode: 'live' | 'test';
  readonly count: number;
  readonly oldestAgeSeconds: number;
  /** 0 while every such attempt's link is still within its expiry. */
  readonly pastExpirySeconds: number;
}

/** Unresolved payments of one reason and mode: how many, and the oldest one's age. */
export interface UnresolvedPayments {
  readonly reason: string;
  readonly mode: 'live' | 'test';
  readonly count: number;
  readonly oldestAgeSeconds: number;
}

/** Live payouts of one rail waiting in one state (approved: not yet handed to the rail; processing: at the rail). */
export interface WaitingPayouts {
  readonly rail: string;
  readonly status: 'approved' | 'processing';
  readonly count: number;
  /** How long the one longest in that state has been in it. */
  readonly oldestAgeSeconds: number;
}

interface WaitingPayoutRow {
  rail: string;
  status: 'approved' | 'processing';
  count: number;
  oldest_age_seconds: number | null;
}

interface UnfinishedRow {
  provider: string;
  mode: 'live' | 'test';
  count: number;
  oldest_age_seconds: number | null;
  past_expiry_seconds: number | null;
}

interface UnresolvedRow {
  reason: string;
  mode: 'live' | 'test';
  count: number;
  oldest_age_seconds: number | null;
}

/**
 * The reads behind the payment-health gauges (docs/adr/0026-provider-outages-and-metrics.md), one cheap query each
 * per scrape: unfinished attempts ride the partial index on unfinished states, unresolved payments are few.
 */
export class PaymentHealthRepository {
  constructor(private readonly db: Db) {}

  async unfinishedAttempts(): Promise<UnfinishedAttempts[]> {
    const rows = await this.db.query<UnfinishedRow>(
      `SELECT a.provider, CASE WHEN a.livemode THEN 'live' ELSE 'test' END AS mode, count(*)::int AS count,
              EXTRACT(EPOCH FROM now() - min(a.created_at))::float8 AS oldest_age_seconds,
              EXTRACT(EPOCH FROM now() - min(l.expires_at))::float8 AS past_expiry_seconds
         FROM payment_attempts a JOIN payment_links l ON l.id = a.link_id
        WHERE a.state IN ('creating', 'pending', 'unknown')
        GROUP BY 1, 2`,
    );
    return rows.map((r) => ({
      provider: r.provider,
      mode: r.mode,
      count: r.count,
      oldestAgeSeconds: Math.max(0, r.oldest_age_seconds ?? 0),
      pastExpirySeconds: Math.max(0, r.past_expiry_seconds ?? 0),
    }));
  }

  /**
   * Live payouts waiting on a rail, by rail and state (the rail queue's partial index serves it): an approved one waits
   * since its approval (creation when it needed none), a processing one since it was handed over.
   */
  async waitingPayouts(): Promise<WaitingPayouts[]> {
    const rows = await this.db.query<WaitingPayoutRow>(
      `SELECT rail, status, count(*)::int AS count,
              EXTRACT(EPOCH FROM now() - min(CASE WHEN status = 'approved' THEN coalesce(approved_at, created_at)
                                                  ELSE coalesce(processing_at, updated_at) END))::float8 AS oldest_age_seconds
         FROM payouts
        WHERE status IN ('approved', 'processing') AND livemode
        GROUP BY 1, 2`,
    );
    return rows.map((r) => ({ rail: r.rail, status: r.status, count: r.count, oldestAgeSeconds: Math.max(0, r.oldest_age_seconds ?? 0) }));
  }

  /** Unresolved payments no one has settled or refunded yet, by reason and mode (the partial open index serves it). */
  async unresolvedPayments(): Promise<UnresolvedPayments[]> {
    const rows = await this.db.query<UnresolvedRow>(
      `SELECT p.reason, CASE WHEN l.livemode THEN 'live' ELSE 'test' END AS mode, count(*)::int AS count,
              EXTRACT(EPOCH FROM now() - min(p.received_at))::float8 AS oldest_age_seconds
         FROM unresolved_payments p JOIN payment_links l ON l.id = p.link_id
        WHERE p.resolution IS NULL
        GROUP BY 1, 2`,
    );
    return rows.map((r) => ({ reason: r.reason, mode: r.mode, count: r.count, oldestAgeSeconds: Math.max(0, r.oldest_age_seconds ?? 0) }));
  }
}
