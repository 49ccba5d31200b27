import type { Db } from '@pl/db';
import type { SummaryDayRecord, SummaryQuery, SummaryStore } from '../domain/summary';

interface DayRow {
  date: string;
  gross_volume: string;
  paid_count: string;
  created_count: string;
  created_paid_count: string;
  refunds: string;
}

/**
 * One statement for the whole window. Each part reads one range of an index that starts with the scope column and
 * the mode: links by `created_at` (payment_links_{shop,merchant}_mode_created_idx), paid links by `paid_at` (the
 * partial payment_links_{shop,merchant}_mode_paid_idx), refunds by `created_at`. So its cost is the window's rows,
 * never the merchant's history. Days are Moscow's (Europe/Moscow, UTC+3 since 2014): a day's bounds are its
 * midnights there, and "today" is the Moscow date of `now`.
 */
const summarySql = (scope: 'shop_id' | 'merchant_id'): string => `
  WITH window_days AS (
    SELECT (($2::timestamptz AT TIME ZONE 'Europe/Moscow')::date - ($3::int - 1)) AS first_day,
           ($2::timestamptz AT TIME ZONE 'Europe/Moscow')::date AS last_day
  ), bounds AS (
    SELECT first_day, last_day,
           first_day::timestamp AT TIME ZONE 'Europe/Moscow' AS starts_at,
           (last_day + 1)::timestamp AT TIME ZONE 'Europe/Moscow' AS ends_at
      FROM window_days
  ), created AS (
    SELECT (l.created_at AT TIME ZONE 'Europe/Moscow')::date AS day,
           count(*) AS created_count,
           count(*) FILTER (WHERE l.status = 'paid') AS created_paid_count
      FROM payment_links l, bounds b
     WHERE l.${scope} = $1 AND l.livemode = $4 AND l.created_at >= b.starts_at AND l.created_at < b.ends_at
     GROUP BY 1
  ), paid AS (
    SELECT (l.paid_at AT TIME ZONE 'Europe/Moscow')::date AS day, count(*) AS paid_count, sum(l.amount) AS gross_volume
      FROM payment_links l, bounds b
     WHERE l.${scope} = $1 AND l.livemode = $4 AND l.status = 'paid' AND l.paid_at >= b.starts_at AND l.paid_at < b.ends_at
     GROUP BY 1
  ), refunded AS (
    SELECT (r.created_at AT TIME ZONE 'Europe/Moscow')::date AS day, sum(r.amount) AS refunds
      FROM refunds r, bounds b
     WHERE r.${scope} = $1 AND r.livemode = $4 AND r.status <> 'failed' AND r.late_payment_id IS NULL
       AND r.created_at >= b.starts_at AND r.created_at < b.ends_at
     GROUP BY 1
  )
  SELECT to_char(d.day, 'YYYY-MM-DD') AS date,
         coalesce(p.gross_volume, 0)::text AS gross_volume,
         coalesce(p.paid_count, 0)::text AS paid_count,
         coalesce(c.created_count, 0)::text AS created_count,
         coalesce(c.created_paid_count, 0)::text AS created_paid_count,
         coalesce(f.refunds, 0)::text AS refunds
    FROM bounds b
   CROSS JOIN LATERAL generate_series(b.first_day, b.last_day, interval '1 day') AS g(at)
   CROSS JOIN LATERAL (SELECT g.at::date AS day) d
    LEFT JOIN created c ON c.day = d.day
    LEFT JOIN paid p ON p.day = d.day
    LEFT JOIN refunded f ON f.day = d.day
   ORDER BY d.day`;

const toDay = (row: DayRow): SummaryDayRecord => ({
  date: row.date,
  grossVolume: Number(row.gross_volume),
  paidCount: Number(row.paid_count),
  createdCount: Number(row.created_count),
  createdPaidCount: Number(row.created_paid_count),
  refunds: Number(row.refunds),
});

/** The dashboard Home page's figures, added up by Postgres from the links and refunds tables. */
export class SummaryRepository implements SummaryStore {
  constructor(private readonly db: Db) {}

  async summary(query: SummaryQuery): Promise<SummaryDayRecord[]> {
    // A shop's figures read the shop's indexes; the account's read the merchant's. The shop is the merchant's
    // (checked before), so the shop's statement needs no merchant filter.
    const [sql, scopeId] = query.shopId === null ? [summarySql('merchant_id'), query.merchantId] : [summarySql('shop_id'), query.shopId];
    const rows = await this.db.query<DayRow>(sql, [scopeId, query.now, query.days, query.mode === 'live']);
    return rows.map(toDay);
  }
}
