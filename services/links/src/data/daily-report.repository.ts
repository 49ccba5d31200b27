import type { Db } from '@pl/db';
import type { DailyReportRowType } from '@pl/contracts';
import type { DailyReportQuery, DailyReportRecord, DailyReportStore } from '../domain/daily-report';
import { FROM_MICROS } from './link.row';

/**
 * One kind of row of the daily report: where its rows come from, which instant places them in the day and which
 * id orders rows of one instant. Its `select` names the columns every source gives: id, type, amount, fee, net,
 * order_id, destination, status. The parameters every source may use: $1 shop, $2 livemode, $3 merchant.
 */
interface ReportSource {
  name: string;
  from: string;
  where: string;
  at: string;
  key: string;
  select: string;
}

/**
 * The report's rows, one query per kind (ADR 40); a new kind adds its source here and its type to
 * `dailyReportRowType`, nothing else.
 * Rows that move the shop's balance come from the ledger itself, so the report's totals are the ledger's.
 */
export const REPORT_SOURCES: readonly ReportSource[] = [
  {
    name: 'payments',
    from: 'ledger_transactions t JOIN payment_links l ON l.id = t.payment_link_id',
    where: `t.shop_id = $1 AND t.livemode = $2 AND t.merchant_id = $3 AND t.type = 'payment'`,
    at: 't.created_at',
    key: 't.id',
    select: `l.id, 'payment' AS type, t.amount, t.fee, t.net, l.order_id, NULL::text AS destination, l.status`,
  },
  {
    name: 'refunds',
    // A refund's creation reserves its amount (`refund`), a failure gives it back (`refund_failed`).
    from: 'ledger_transactions t JOIN refunds r ON r.id = t.refund_id JOIN payment_links l ON l.id = t.payment_link_id',
    where: `t.shop_id = $1 AND t.livemode = $2 AND t.merchant_id = $3 AND t.type IN ('refund', 'refund_failed')`,
    at: 't.created_at',
    key: 't.id',
    select: `r.id, t.type, t.amount, t.fee, t.net, l.order_id, NULL::text AS destination, r.status`,
  },
  {
    name: 'unresolved payments received',
    // The money's arrival: nothing is credited until it is settled, so no fee or net.
    from: 'unresolved_payments u JOIN payment_links l ON l.id = u.link_id',
    where: 'l.shop_id = $1 AND l.livemode = $2 AND l.merchant_id = $3',
    at: 'u.received_at',
    key: 'u.id',
    select: `u.id, 'unresolved_payment' AS type, u.amount, NULL::bigint AS fee, NULL::bigint AS net, l.order_id, NULL::text AS destination, u.status`,
  },
  {
    name: 'unresolved payments settled',
    from: 'ledger_transactions t JOIN unresolved_payments u ON u.id = t.late_payment_id JOIN payment_links l ON l.id = t.payment_link_id',
    where: `t.shop_id = $1 AND t.livemode = $2 AND t.merchant_id = $3 AND t.type IN ('late_payment', 'unresolved_payment')`,
    at: 't.created_at',
    key: 't.id',
    select: `u.id, 'unresolved_payment_settled' AS type, t.amount, t.fee, t.net, l.order_id, NULL::text AS destination, u.status`,
  },
  {
    name: 'unresolved payments refunded',
    // Given back to the buyer from the clearing account: the shop's balance never held it, so no fee or net.
    from: 'ledger_transactions t JOIN unresolved_payments u ON u.id = t.late_payment_id JOIN payment_links l ON l.id = t.payment_link_id',
    where: `t.shop_id = $1 AND t.livemode = $2 AND t.merchant_id = $3 AND t.type IN ('late_refund', 'late_refund_failed')`,
    at: 't.created_at',
    key: 't.id',
    select: `u.id, CASE t.type WHEN 'late_refund' THEN 'unresolved_payment_refunded' ELSE 'unresolved_payment_refund_failed' END AS type,
             CASE t.type WHEN 'late_refund' THEN -u.amount ELSE u.amount END AS amount, NULL::bigint AS fee, NULL::bigint AS net,
             l.order_id, NULL::text AS destination, u.status`,
  },
  {
    name: 'payouts',
    // A payout's creation takes its amount and fee from the balance (`payout`); a failure, cancel or rejection gives
    // them back (`payout_returned`). Its being paid moves nothing of the shop's, so its status tells it.
    from: 'ledger_transactions t JOIN payouts p ON p.id = t.payout_id',
    where: `t.shop_id = $1 AND t.livemode = $2 AND t.merchant_id = $3 AND t.type IN ('payout', 'payout_returned')`,
    at: 't.created_at',
    key: 't.id',
    select: `p.id, t.type, t.amount, t.fee, t.net, NULL::text AS order_id, p.destination_masked AS destination, p.status`,
  },
];

interface ReportRow {
  key: string;
  at: Date;
  at_us: string;
  id: string;
  type: DailyReportRowType;
  amount: string;
  fee: string | null;
  net: string | null;
  order_id: string | null;
  destination: string | null;
  status: string;
}

const orNull = (value: string | null): number | null => (value === null ? null : Number(value));

const toRecord = (row: ReportRow): DailyReportRecord => ({
  key: row.key,
  at: row.at,
  atMicros: BigInt(row.at_us),
  id: row.id,
  type: row.type,
  amount: Number(row.amount),
  fee: orNull(row.fee),
  net: orNull(row.net),
  orderId: row.order_id,
  destination: row.destination,
  status: row.status,
});

/**
 * The daily report read from the links schema: each source a keyset walk of its own index over the day, cut at the
 * page's size, and the page the first `limit` of their union in (at, key) order.
 */
export class DailyReportRepository implements DailyReportStore {
  constructor(private readonly db: Db) {}

  async dailyReport(query: DailyReportQuery): Promise<DailyReportRecord[]> {
    const params: unknown[] = [query.shopId, query.mode === 'live', query.merchantId, query.from, query.to, query.limit];
    let after = '';
    if (query.after) {
      params.push(query.after.atMicros.toString(), query.after.key);
      after = ` AND (%at, %key) > (${FROM_MICROS('$7')}, $8::uuid)`;
    }
    const parts = REPORT_SOURCES.map((s) => {
      const bound = after.replaceAll('%at', s.at).replaceAll('%key', s.key);
      return `(SELECT ${s.key} AS key, ${s.at} AS at, ${s.select}
                 FROM ${s.from}
                WHERE ${s.where} AND ${s.at} >= $4 AND ${s.at} < $5${bound}
                ORDER BY ${s.at}, ${s.key} LIMIT $6)`;
    });
    const rows = await this.db.query<ReportRow>(
      `SELECT r.*, (extract(epoch FROM r.at) * 1000000)::bigint AS at_us
         FROM (${parts.join('\n UNION ALL ')}) r
        ORDER BY r.at, r.key LIMIT $6`,
      params,
    );
    return rows.map(toRecord);
  }
}
