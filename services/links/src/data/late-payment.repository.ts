import type { Db } from '@pl/db';
import type { ArrivedPayment, LatePayment } from '../domain/late-payment';
import type { FinalStatus } from '../domain/link';
import type { LatePaymentBook, LinksOwnMode } from '../domain/ports';

/** pg hands bigint back as text; kopeck and shop id values stay far below 2^53. */
interface LatePaymentRow {
  id: string;
  link_id: string;
  link_status: FinalStatus;
  provider: string;
  gateway_payment_id: string;
  payer_amount: string;
  merchant_credit: string;
  platform_revenue: string;
  resolution: 'settled' | 'refunded' | null;
  resolved_at: Date | null;
  received_at: Date;
  merchant_id: string;
  shop_id: string;
  order_id: string | null;
  livemode: boolean;
}

const toLatePayment = (r: LatePaymentRow): LatePayment => ({
  id: r.id,
  linkId: r.link_id,
  linkStatus: r.link_status,
  provider: r.provider,
  gatewayPaymentId: r.gateway_payment_id,
  payerAmount: Number(r.payer_amount),
  merchantCredit: Number(r.merchant_credit),
  platformRevenue: Number(r.platform_revenue),
  resolution: r.resolution,
  resolvedAt: r.resolved_at,
  receivedAt: r.received_at,
  merchantId: r.merchant_id,
  shopId: Number(r.shop_id),
  orderId: r.order_id,
  livemode: r.livemode,
});

/** A late payment's own columns, as {@link LatePaymentRow} reads them. */
const LATE_COLUMN_NAMES = [
  'id',
  'link_id',
  'link_status',
  'provider',
  'gateway_payment_id',
  'payer_amount',
  'merchant_credit',
  'platform_revenue',
  'resolution',
  'resolved_at',
  'received_at',
];
const LATE_COLUMNS = LATE_COLUMN_NAMES.join(', ');
/** The same columns of the table aliased `alias`. */
const lateColumnsOf = (alias: string): string => LATE_COLUMN_NAMES.map((c) => `${alias}.${c}`).join(', ');

/** Late payments in the `links` schema (table late_payments), each with the merchant, shop and order of its link. */
export class LatePaymentRepository implements LatePaymentBook {
  /** `onRecorded` gets each late payment a statement committed (not a repeat): the service counts and logs it. */
  constructor(
    private readonly db: Db,
    private readonly onRecorded: (late: LatePayment) => void = () => undefined,
  ) {}

  /**
   * One statement reads the link and writes the record, so the state recorded is the one the payment met. A
   * link that left `pending` never returns to it, so a link read as not pending here stays so; a repeat of the
   * payment meets the unique (provider, gateway_payment_id) and writes nothing (it waits for a concurrent
   * first one to commit, then does nothing). A payment reaches its link in the link's own mode.
   */
  async recordIfLate(payment: ArrivedPayment, _reach: LinksOwnMode): Promise<LatePayment | null> {
    const rows = await this.db.query<LatePaymentRow>(
      `WITH link AS (
         SELECT id, status, payer_amount, merchant_credit, platform_revenue, merchant_id, shop_id, order_id, livemode
           FROM payment_links WHERE id = $2 AND status <> 'pending'
       ), recorded AS (
         INSERT INTO late_payments (id, link_id, link_status, provider, gateway_payment_id, payer_amount, merchant_credit,
                                    platform_revenue, received_at)
         SELECT $1, id, status, $3, $4, payer_amount, merchant_credit, platform_revenue, $5 FROM link
         ON CONFLICT ON CONSTRAINT late_payments_payment_key DO NOTHING
         RETURNING ${LATE_COLUMNS}
       )
       SELECT r.*, l.merchant_id, l.shop_id, l.order_id, l.livemode FROM recorded r CROSS JOIN link l`,
      [payment.id, payment.linkId, payment.provider, payment.gatewayPaymentId, payment.receivedAt],
    );
    const late = rows[0] ? toLatePayment(rows[0]) : null;
    if (late) this.onRecorded(late);
    return late;
  }

  async list(since: Date | null): Promise<LatePayment[]> {
    const rows = await this.db.query<LatePaymentRow>(
      `SELECT ${lateColumnsOf('p')},
              l.merchant_id, l.shop_id, l.order_id, l.livemode
         FROM late_payments p JOIN payment_links l ON l.id = p.link_id
        WHERE $1::timestamptz IS NULL OR p.received_at >= $1::timestamptz
        ORDER BY p.received_at, p.id`,
      [since],
    );
    return rows.map(toLatePayment);
  }
}
