import { formatMoscow } from '@pl/contracts';
import type { Db } from '@pl/db';
import { formatKopecks } from '@pl/money';
import { runKey, type ScheduleSkipRecord } from '../domain/run-payout-schedule';

interface ScheduleRunRow {
  shop_id: string;
  livemode: boolean;
  period: string;
  interval: string;
  merchant_id: string;
  outcome: string;
  payout_id: string | null;
  available: string | null;
  minimum: string;
  decided_at: Date;
}

/** A period's decision as the operators read it (`payout:schedule-runs`): money in RUB, the date in Moscow time. */
export interface ScheduleRunView {
  shop_id: number;
  merchant_id: string;
  mode: 'live' | 'test';
  period: string;
  interval: string;
  outcome: string;
  payout_id: string | null;
  available: string | null;
  minimum: string;
  decided_at: string;
}

/**
 * `payout_schedule_runs` (docs/adr/0046): a period decided with a payout is written by the payout's own transaction
 * (PayoutRepository.create); these are the reads and the decisions without one.
 */
export class PayoutScheduleRunRepository {
  constructor(private readonly db: Db) {}

  async decided(keys: { shopId: number; livemode: boolean; period: string }[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.db.query<{ shop_id: string; livemode: boolean; period: string }>(
      `SELECT r.shop_id, r.livemode, to_char(r.period, 'YYYY-MM-DD') AS period
         FROM payout_schedule_runs r
         JOIN unnest($1::bigint[], $2::boolean[], $3::date[]) AS k(shop_id, livemode, period)
           ON r.shop_id = k.shop_id AND r.livemode = k.livemode AND r.period = k.period`,
      [keys.map((k) => k.shopId), keys.map((k) => k.livemode), keys.map((k) => k.period)],
    );
    return new Set(rows.map((r) => runKey(Number(r.shop_id), r.livemode, r.period)));
  }

  /** The first decision of a period stays: a skip after another scheduler's decision writes nothing. */
  async recordSkip({ schedule, claim, outcome }: ScheduleSkipRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO payout_schedule_runs (shop_id, livemode, period, interval, merchant_id, outcome, available, minimum)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (shop_id, livemode, period) DO NOTHING`,
      [
        schedule.shop_id,
        schedule.mode === 'live',
        claim.period,
        claim.interval,
        schedule.merchant_id,
        outcome,
        claim.availableKopecks,
        claim.minimumKopecks,
      ],
    );
  }

  /** The newest decisions, of one account or all: what the operators read. */
  async list(merchantId: string | null, limit: number): Promise<ScheduleRunView[]> {
    const rows = await this.db.query<ScheduleRunRow>(
      `SELECT shop_id, livemode, to_char(period, 'YYYY-MM-DD') AS period, interval, merchant_id, outcome, payout_id, available,
              minimum, decided_at
         FROM payout_schedule_runs WHERE $1::uuid IS NULL OR merchant_id = $1 ORDER BY decided_at DESC LIMIT $2`,
      [merchantId, limit],
    );
    return rows.map((r) => ({
      shop_id: Number(r.shop_id),
      merchant_id: r.merchant_id,
      mode: r.livemode ? 'live' : 'test',
      period: r.period,
      interval: r.interval,
      outcome: r.outcome,
      payout_id: r.payout_id,
      available: r.available === null ? null : formatKopecks(Number(r.available)),
      minimum: formatKopecks(Number(r.minimum)),
      decided_at: formatMoscow(r.decided_at),
    }));
  }
}
