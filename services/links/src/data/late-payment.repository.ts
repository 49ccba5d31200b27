import type { PoolClient } from 'pg';
import type { Db } from '@pl/db';
import type { LateRefund, LateResolution, LateResolutions } from '../domain/late-payment';
import type { ArrivedPayment, FinalStatus, LatePayment, LinkRecord, OutboxEntry } from '../domain/link';
import type { LatePaymentBook, LinksOwnMode } from '../domain/ports';
import { COLUMNS, toRecord, type LinkRow } from './link.row';
import { committedEntry, insertOutboxEntries } from './outbox.repository';

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
export class LatePaymentRepository implements LatePaymentBook, LateResolutions {
  /**
   * `onRecorded` gets each late payment a statement committed (not a repeat): the service counts and logs it.
   * `onEventWritten` gets the event a resolve committed (the relay's hand-over, where there is one).
   */
  constructor(
    private readonly db: Db,
    private readonly onRecorded: (late: LatePayment) => void = () => undefined,
    private readonly onEventWritten: (entry: OutboxEntry) => void = () => undefined,
  ) {}

  async findById(id: string): Promise<LatePayment | null> {
    const rows = await this.db.query<LatePaymentRow>(
      `SELECT ${lateColumnsOf('p')}, l.merchant_id, l.shop_id, l.order_id, l.livemode
         FROM late_payments p JOIN payment_links l ON l.id = p.link_id WHERE p.id = $1`,
      [id],
    );
    return rows[0] ? toLatePayment(rows[0]) : null;
  }

  /**
   * Credits the shop as for a paid link (ledger type `late_payment`, the record's amounts, the payment's provider's
   * clearing) and writes `eventOf(...)`, in the transaction that marks the record settled.
   */
  async settle(id: string, eventOf: (link: LinkRecord, late: LatePayment) => OutboxEntry): Promise<LateResolution> {
    const done = await this.resolve(id, 'settled', async (client, late, link) => {
      const { rows } = await client.query<{ id: string }>(`SELECT ledger_post('late_payment', $1, NULL, $2, $3, $4, $5, $6::jsonb) AS id`, [
        link.id,
        late.id,
        late.payerAmount,
        late.platformRevenue,
        late.merchantCredit,
        JSON.stringify([
          { account: 'clearing', provider: late.provider, amount: -late.payerAmount },
          { account: 'available', amount: late.merchantCredit },
          { account: 'revenue', amount: late.platformRevenue },
        ]),
      ]);
      const entry = eventOf(link, late);
      const traceparent = await insertOutboxEntries(client, [entry]);
      return { ledgerTransactionId: rows[0]?.id ?? null, refundId: null, event: committedEntry(entry, traceparent) };
    });
    if (done.kind === 'resolved' && done.event) this.onEventWritten(done.event);
    return done;
  }

  /**
   * A refund of the whole payment to the buyer, pending with the provider, in the transaction that marks the record
   * refunded. The shop's balance is not touched: the money never reached it (the refund's settle posts nothing either).
   * The ledger records it clearing to clearing (type `late_refund`): the buyer's payment in and the refund out of the
   * provider's clearing account, two entries that sum to zero.
   */
  async refund(id: string, refund: LateRefund): Promise<LateResolution> {
    return this.resolve(id, 'refunded', async (client, late, link) => {
      await client.query(
        `INSERT INTO refunds (id, payment_link_id, merchant_id, shop_id, livemode, amount, reason, destination, provider,
                              gateway_refund_id, late_payment_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          refund.id,
          link.id,
          link.merchantId,
          link.shopId,
          link.livemode,
          late.payerAmount,
          refund.reason,
          refund.destination,
          late.provider,
          refund.gatewayRefundId,
          late.id,
        ],
      );
      const { rows } = await client.query<{ id: string }>(`SELECT ledger_post('late_refund', $1, $2, $3, 0, 0, 0, $4::jsonb) AS id`, [
        link.id,
        refund.id,
        late.id,
        JSON.stringify([
          { account: 'clearing', provider: late.provider, amount: -late.payerAmount },
          { account: 'clearing', provider: late.provider, amount: late.payerAmount },
        ]),
      ]);
      return { ledgerTransactionId: rows[0]?.id ?? null, refundId: refund.id, event: null };
    });
  }

  /**
   * Marks the record resolved as `resolution` if it is not yet (a conditional update, so of two concurrent resolves
   * one wins, the other waits for its commit and finds it resolved) and does `write` in the same transaction.
   */
  private async resolve(
    id: string,
    resolution: 'settled' | 'refunded',
    write: (
      client: PoolClient,
      late: LatePayment,
      link: LinkRecord,
    ) => Promise<{ ledgerTransactionId: string | null; refundId: string | null; event: OutboxEntry | null }>,
  ): Promise<LateResolution> {
    return this.db.transaction(async (client) => {
      const { rows } = await client.query<LatePaymentRow>(
        `WITH resolved AS (
           UPDATE late_payments SET resolution = $2, resolved_at = now() WHERE id = $1 AND resolution IS NULL RETURNING ${LATE_COLUMNS}
         )
         SELECT ${lateColumnsOf('r')}, l.merchant_id, l.shop_id, l.order_id, l.livemode
           FROM resolved r JOIN payment_links l ON l.id = r.link_id`,
        [id, resolution],
      );
      const row = rows[0];
      if (!row) {
        const { rows: known } = await client.query('SELECT 1 FROM late_payments WHERE id = $1', [id]);
        return { kind: known.length > 0 ? 'already_resolved' : 'not_found' };
      }
      const late = toLatePayment(row);
      const { rows: links } = await client.query<LinkRow>(`SELECT ${COLUMNS} FROM payment_links WHERE id = $1`, [late.linkId]);
      const link = links[0];
      if (!link) throw new Error(`late payment ${late.id} has no link`);
      return { kind: 'resolved', late, ...(await write(client, late, toRecord(link))) };
    });
  }

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
