import type { PoolClient } from 'pg';
import type { Db } from '@pl/db';
import type { UnresolvedRefund, UnresolvedResolution, UnresolvedResolutions } from '../domain/unresolved-payment';
import type { LinkStatus } from '@pl/contracts';
import type { ArrivedPayment, LinkRecord, OutboxEntry, UnresolvedPayment, UnresolvedReason } from '../domain/link';
import type { LinksOwnMode, UnresolvedBook, UnresolvedFilter } from '../domain/ports';
import { COLUMNS, toRecord, type LinkRow } from './link.row';
import { committedEntry, insertOutboxEntries } from './outbox.repository';

/** pg hands bigint back as text; kopeck and shop id values stay far below 2^53. */
interface UnresolvedRow {
  id: string;
  link_id: string;
  reason: UnresolvedReason;
  link_status: LinkStatus;
  provider: string;
  gateway_payment_id: string;
  provider_order_id: string | null;
  payer_amount: string;
  amount: string;
  merchant_credit: string;
  platform_revenue: string;
  payer_currency: string | null;
  payer_crypto_amount: string | null;
  network: string | null;
  resolution: 'settled' | 'refunded' | null;
  resolved_at: Date | null;
  refund_id: string | null;
  received_at: Date;
  merchant_id: string;
  shop_id: string;
  order_id: string | null;
  livemode: boolean;
}

const toUnresolved = (r: UnresolvedRow): UnresolvedPayment => ({
  id: r.id,
  linkId: r.link_id,
  reason: r.reason,
  linkStatus: r.link_status,
  provider: r.provider,
  gatewayPaymentId: r.gateway_payment_id,
  providerOrderId: r.provider_order_id,
  payerAmount: Number(r.payer_amount),
  amount: Number(r.amount),
  merchantCredit: Number(r.merchant_credit),
  platformRevenue: Number(r.platform_revenue),
  payerCurrency: r.payer_currency,
  payerCryptoAmount: r.payer_crypto_amount,
  network: r.network,
  resolution: r.resolution,
  resolvedAt: r.resolved_at,
  refundId: r.refund_id,
  receivedAt: r.received_at,
  merchantId: r.merchant_id,
  shopId: Number(r.shop_id),
  orderId: r.order_id,
  livemode: r.livemode,
});

/** The record's own columns, as {@link UnresolvedRow} reads them (`order_id` is the attempt's, renamed: the link has one too). */
const OWN_COLUMNS = [
  'id',
  'link_id',
  'reason',
  'link_status',
  'provider',
  'gateway_payment_id',
  'payer_amount',
  'amount',
  'merchant_credit',
  'platform_revenue',
  'payer_currency',
  'payer_crypto_amount',
  'network',
  'resolution',
  'resolved_at',
  'refund_id',
  'received_at',
];
const ownColumnsOf = (alias: string): string => [...OWN_COLUMNS.map((c) => `${alias}.${c}`), `${alias}.order_id AS provider_order_id`].join(', ');
const RETURNED = [...OWN_COLUMNS, 'order_id'].join(', ');
/** A record with its link's merchant, shop, order and mode. */
const SELECT_JOINED = `SELECT ${ownColumnsOf('p')}, l.merchant_id, l.shop_id, l.order_id, l.livemode
                         FROM unresolved_payments p JOIN payment_links l ON l.id = p.link_id`;

/**
 * Records `payment` against its link as the link stands now (no longer pending: a payment that found it pending paid
 * it instead; only an underpayment or a hold of an attempt the buyer left behind meets a pending one), with `eventOf(...)` (`unresolved_payment.created`) in the outbox, on `client`'s transaction. One statement
 * reads the link and writes the record, so the state recorded is the one the payment met (or left, when it runs after
 * the link's move in the move's transaction). A repeat of the (provider payment, reason) meets the unique key and
 * writes nothing (it waits for a concurrent first one to commit): null then, and no event.
 */
export async function insertUnresolved(
  client: PoolClient,
  payment: ArrivedPayment,
  eventOf: (recorded: UnresolvedPayment) => OutboxEntry,
): Promise<{ recorded: UnresolvedPayment; event: OutboxEntry } | null> {
  const { rows } = await client.query<UnresolvedRow>(
    `WITH link AS (
       SELECT id, status, merchant_id, shop_id, order_id, livemode FROM payment_links
        WHERE id = $2 AND (status <> 'pending' OR $3 IN ('underpaid', 'aml_hold'))
     ), recorded AS (
       INSERT INTO unresolved_payments (id, link_id, reason, link_status, provider, gateway_payment_id, order_id, payer_amount, amount,
                                        merchant_credit, platform_revenue, payer_currency, payer_crypto_amount, network, received_at)
       SELECT $1, id, $3, status, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14 FROM link
       ON CONFLICT ON CONSTRAINT unresolved_payments_payment_key DO NOTHING
       RETURNING ${RETURNED}
     )
     SELECT ${ownColumnsOf('r')}, l.merchant_id, l.shop_id, l.order_id, l.livemode FROM recorded r CROSS JOIN link l`,
    [
      payment.id,
      payment.linkId,
      payment.reason,
      payment.provider,
      payment.gatewayPaymentId,
      payment.providerOrderId,
      payment.payerAmount,
      payment.amount,
      payment.merchantCredit,
      payment.platformRevenue,
      payment.payerCurrency,
      payment.payerCryptoAmount,
      payment.network,
      payment.receivedAt,
    ],
  );
  if (!rows[0]) return null;
  const recorded = toUnresolved(rows[0]);
  const entry = eventOf(recorded);
  const traceparent = await insertOutboxEntries(client, [entry]);
  return { recorded, event: committedEntry(entry, traceparent) };
}

/** Unresolved payments in the `links` schema (table unresolved_payments), each with the merchant, shop and order of its link. */
export class UnresolvedPaymentRepository implements UnresolvedBook, UnresolvedResolutions {
  /**
   * `onRecorded` gets each record a statement committed (not a repeat): the service counts and logs it.
   * `onEventWritten` gets each event committed (the relay's hand-over).
   */
  constructor(
    private readonly db: Db,
    private readonly onRecorded: (recorded: UnresolvedPayment) => void = () => undefined,
    private readonly onEventWritten: (entry: OutboxEntry) => void = () => undefined,
  ) {}

  /** What a record's commit sets off, for a caller that wrote it in its own transaction (a link's move). */
  committed(recorded: UnresolvedPayment, event: OutboxEntry): void {
    this.onRecorded(recorded);
    this.onEventWritten(event);
  }

  async findById(id: string): Promise<UnresolvedPayment | null> {
    const rows = await this.db.query<UnresolvedRow>(`${SELECT_JOINED} WHERE p.id = $1`, [id]);
    return rows[0] ? toUnresolved(rows[0]) : null;
  }

  async record(
    payment: ArrivedPayment,
    eventOf: (recorded: UnresolvedPayment) => OutboxEntry,
    _reach: LinksOwnMode,
  ): Promise<UnresolvedPayment | null> {
    const done = await this.db.transaction((client) => insertUnresolved(client, payment, eventOf));
    if (done) this.committed(done.recorded, done.event);
    return done?.recorded ?? null;
  }

  /**
   * Credits the shop what the record says (ledger type `late_payment` for a late one, as before, `unresolved_payment` for
   * the others; the payment's provider's clearing pays it) and writes `eventsOf(...)`, in the transaction that marks it settled.
   */
  async settle(id: string, eventsOf: (link: LinkRecord, settled: UnresolvedPayment) => OutboxEntry[]): Promise<UnresolvedResolution> {
    const done = await this.resolve(id, 'settled', async (client, settled, link) => {
      const type = settled.reason === 'late' ? 'late_payment' : 'unresolved_payment';
      const { rows } = await client.query<{ id: string }>(`SELECT ledger_post($1, $2, NULL, $3, $4, $5, $6, $7::jsonb) AS id`, [
        type,
        link.id,
        settled.id,
        settled.amount,
        settled.platformRevenue,
        settled.merchantCredit,
        JSON.stringify([
          { account: 'clearing', provider: settled.provider, amount: -settled.amount },
          { account: 'available', amount: settled.merchantCredit },
          { account: 'revenue', amount: settled.platformRevenue },
        ]),
      ]);
      const entries = eventsOf(link, settled);
      const traceparent = await insertOutboxEntries(client, entries);
      return { ledgerTransactionId: rows[0]?.id ?? null, refundId: null, events: entries.map((e) => committedEntry(e, traceparent)) };
    });
    if (done.kind === 'resolved') for (const e of done.events) this.onEventWritten(e);
    return done;
  }

  /**
   * A refund of what arrived to the buyer, pending (not yet handed to the provider: that happens after this commits),
   * in the transaction that marks the record refunded, with `eventOf(...)`. The shop's balance is not touched: the money
   * never reached it. The ledger records it clearing to clearing (type `late_refund`): the payment in and the refund out
   * of the provider's clearing account, two entries that sum to zero; a failure of the refund reverses them.
   */
  async refund(
    id: string,
    refund: UnresolvedRefund,
    eventOf: (link: LinkRecord, refunded: UnresolvedPayment) => OutboxEntry,
  ): Promise<UnresolvedResolution> {
    const done = await this.resolve(id, 'refunded', async (client, refunded, link) => {
      await client.query(
        `INSERT INTO refunds (id, payment_link_id, merchant_id, shop_id, livemode, amount, reason, destination, provider, late_payment_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          refund.id,
          link.id,
          link.merchantId,
          link.shopId,
          link.livemode,
          refunded.amount,
          refund.reason,
          refund.destination,
          refunded.provider,
          refunded.id,
        ],
      );
      await client.query('UPDATE unresolved_payments SET refund_id = $2 WHERE id = $1', [refunded.id, refund.id]);
      const { rows } = await client.query<{ id: string }>(`SELECT ledger_post('late_refund', $1, $2, $3, 0, 0, 0, $4::jsonb) AS id`, [
        link.id,
        refund.id,
        refunded.id,
        JSON.stringify([
          { account: 'clearing', provider: refunded.provider, amount: -refunded.amount },
          { account: 'clearing', provider: refunded.provider, amount: refunded.amount },
        ]),
      ]);
      const withRefund = { ...refunded, refundId: refund.id };
      const entry = eventOf(link, withRefund);
      const traceparent = await insertOutboxEntries(client, [entry]);
      return { ledgerTransactionId: rows[0]?.id ?? null, refundId: refund.id, events: [committedEntry(entry, traceparent)], unresolved: withRefund };
    });
    if (done.kind === 'resolved') for (const e of done.events) this.onEventWritten(e);
    return done;
  }

  /**
   * Marks the record resolved as `resolution` if it is not yet (a conditional update, so of concurrent resolves one
   * wins, the others wait for its commit and find it resolved) and does `write` in the same transaction.
   */
  private async resolve(
    id: string,
    resolution: 'settled' | 'refunded',
    write: (
      client: PoolClient,
      unresolved: UnresolvedPayment,
      link: LinkRecord,
    ) => Promise<{ ledgerTransactionId: string | null; refundId: string | null; events: OutboxEntry[]; unresolved?: UnresolvedPayment }>,
  ): Promise<UnresolvedResolution> {
    return this.db.transaction(async (client) => {
      const { rows } = await client.query<UnresolvedRow>(
        `WITH resolved AS (
           UPDATE unresolved_payments SET resolution = $2, resolved_at = now() WHERE id = $1 AND resolution IS NULL RETURNING ${RETURNED}
         )
         SELECT ${ownColumnsOf('r')}, l.merchant_id, l.shop_id, l.order_id, l.livemode
           FROM resolved r JOIN payment_links l ON l.id = r.link_id`,
        [id, resolution],
      );
      const row = rows[0];
      if (!row) {
        const { rows: known } = await client.query('SELECT 1 FROM unresolved_payments WHERE id = $1', [id]);
        return { kind: known.length > 0 ? 'already_resolved' : 'not_found' };
      }
      const unresolved = toUnresolved(row);
      const { rows: links } = await client.query<LinkRow>(`SELECT ${COLUMNS} FROM payment_links WHERE id = $1`, [unresolved.linkId]);
      const link = links[0];
      if (!link) throw new Error(`unresolved payment ${unresolved.id} has no link`);
      const written = await write(client, unresolved, toRecord(link));
      return { kind: 'resolved', late: written.unresolved ?? unresolved, ...written };
    });
  }

  /** Every late payment received at or after `since` (all when null), oldest first, of both modes: `payment:late`. */
  async list(since: Date | null): Promise<UnresolvedPayment[]> {
    const rows = await this.db.query<UnresolvedRow>(
      `${SELECT_JOINED} WHERE p.reason = 'late' AND ($1::timestamptz IS NULL OR p.received_at >= $1::timestamptz)
        ORDER BY p.received_at, p.id`,
      [since],
    );
    return rows.map(toUnresolved);
  }

  /** Unresolved payments by filter, newest first (keyset on received_at, id), of both modes unless one is named. */
  async listBy(filter: UnresolvedFilter): Promise<UnresolvedPayment[]> {
    const params: unknown[] = [];
    const where: string[] = [];
    const add = (sql: (n: number) => string, value: unknown) => {
      params.push(value);
      where.push(sql(params.length));
    };
    if (filter.merchantId !== null) add((n) => `l.merchant_id = $${n}`, filter.merchantId);
    if (filter.livemode !== null) add((n) => `l.livemode = $${n}`, filter.livemode);
    if (filter.shopId !== null) add((n) => `l.shop_id = $${n}`, filter.shopId);
    if (filter.reason !== null) add((n) => `p.reason = $${n}`, filter.reason);
    if (filter.status !== null) add((n) => `p.status = $${n}`, filter.status);
    if (filter.before !== null) {
      params.push(filter.before.receivedAt, filter.before.id);
      where.push(`(p.received_at, p.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    params.push(filter.limit);
    const rows = await this.db.query<UnresolvedRow>(
      `${SELECT_JOINED} ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY p.received_at DESC, p.id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toUnresolved);
  }
}

/** The name the operators' `payment:late:*` commands know it by. */
export { UnresolvedPaymentRepository as LatePaymentRepository };
