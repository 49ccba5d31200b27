import type { Db } from '@pl/db';
import type { LinkStatus } from '@pl/contracts';
import type { FeePayer } from '@pl/money';
import type { FinalStatus, LinkRecord, NewLink } from '../domain/link';
import type { LinkListQuery, LinkScope, LinkStore } from '../domain/ports';

/** pg hands bigint back as text; kopeck and shop id values stay far below 2^53. */
interface LinkRow {
  id: string;
  merchant_id: string;
  shop_id: string;
  order_id: string | null;
  description: string | null;
  amount: string;
  fee_bps: number;
  fee_percent_bp: number;
  crypto_bps: number;
  sbp_bps: number;
  fee_payer: FeePayer;
  payer_amount: string;
  merchant_credit: string;
  platform_revenue: string;
  status: LinkStatus;
  gateway_provider: string | null;
  gateway_payment_id: string | null;
  to_currency: string | null;
  network: string | null;
  deposit_address: string | null;
  payer_currency: string | null;
  payer_crypto_amount: string | null;
  qr: string | null;
  expires_at: Date;
  paid_at: Date | null;
  created_at: Date;
  created_at_us: string;
  updated_at: Date;
}

// extract(epoch) is numeric since Postgres 14, so the microseconds survive exactly.
const COLUMNS = `id, merchant_id, shop_id, order_id, description, amount, fee_bps, fee_percent_bp, crypto_bps, sbp_bps,
  fee_payer, payer_amount, merchant_credit, platform_revenue, status, gateway_provider, gateway_payment_id,
  to_currency, network, deposit_address, payer_currency, payer_crypto_amount, qr, expires_at, paid_at, created_at,
  (extract(epoch FROM created_at) * 1000000)::bigint AS created_at_us, updated_at`;

/** A timestamptz from exact epoch microseconds (interval × float8 is exact below 2^53 µs, about 285 years). */
const FROM_MICROS = (param: string): string => `(timestamptz 'epoch' + ${param}::bigint * interval '1 microsecond')`;

const toRecord = (r: LinkRow): LinkRecord => ({
  id: r.id,
  merchantId: r.merchant_id,
  shopId: Number(r.shop_id),
  orderId: r.order_id,
  description: r.description,
  currency: 'RUB',
  amount: Number(r.amount),
  feeBps: r.fee_bps,
  feePercentBp: r.fee_percent_bp,
  cryptoBps: r.crypto_bps,
  sbpBps: r.sbp_bps,
  feePayer: r.fee_payer,
  payerAmount: Number(r.payer_amount),
  merchantCredit: Number(r.merchant_credit),
  platformRevenue: Number(r.platform_revenue),
  status: r.status,
  gatewayProvider: r.gateway_provider,
  gatewayPaymentId: r.gateway_payment_id,
  toCurrency: r.to_currency,
  network: r.network,
  depositAddress: r.deposit_address,
  payerCurrency: r.payer_currency,
  payerCryptoAmount: r.payer_crypto_amount,
  qr: r.qr,
  expiresAt: r.expires_at,
  paidAt: r.paid_at,
  createdAt: r.created_at,
  createdAtMicros: BigInt(r.created_at_us),
  updatedAt: r.updated_at,
});

/** Extra conditions of each move beyond "the link is pending": time rules and what else it stamps. */
const MOVES: Readonly<Record<FinalStatus, { where: string; set: string }>> = {
  // A link past its expiry is expired, not cancelable; a link before it cannot expire.
  canceled: { where: 'AND expires_at > now()', set: '' },
  expired: { where: 'AND expires_at <= now()', set: '' },
  paid: { where: '', set: ', paid_at = now()' },
  failed: { where: '', set: '' },
};

/** Builds `AND col = $n` conditions, numbering parameters as it goes. */
class Conditions {
  readonly params: unknown[];
  private readonly parts: string[] = [];

  constructor(initial: unknown[]) {
    this.params = [...initial];
  }

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  add(sql: string): void {
    this.parts.push(`AND ${sql}`);
  }

  scope(scope: LinkScope | undefined): void {
    if (!scope) return;
    this.add(`merchant_id = ${this.param(scope.merchantId)}`);
    if (scope.shopId !== undefined) this.add(`shop_id = ${this.param(scope.shopId)}`);
  }

  toString(): string {
    return this.parts.join(' ');
  }
}

/** Payment links in the `links` schema. Every status move is a single conditional UPDATE. */
export class LinkRepository implements LinkStore {
  constructor(private readonly db: Db) {}

  async insert(link: NewLink): Promise<LinkRecord> {
    const rows = await this.db.query<LinkRow>(
      `INSERT INTO payment_links (id, merchant_id, shop_id, order_id, description, currency, amount, fee_bps,
         fee_percent_bp, crypto_bps, sbp_bps, fee_payer, payer_amount, merchant_credit, platform_revenue, status,
         expires_at)
       VALUES ($1, $2, $3, $4, $5, 'RUB', $6, $7, $8, $9, $10, $11, $12, $13, $14, 'pending',
         now() + $15::int * interval '1 minute')
       RETURNING ${COLUMNS}`,
      [
        link.id,
        link.merchantId,
        link.shopId,
        link.orderId,
        link.description,
        link.amount,
        link.feeBps,
        link.feePercentBp,
        link.cryptoBps,
        link.sbpBps,
        link.feePayer,
        link.payerAmount,
        link.merchantCredit,
        link.platformRevenue,
        link.expiresInMinutes,
      ],
    );
    return toRecord(rows[0] as LinkRow);
  }

  async findById(id: string): Promise<LinkRecord | null> {
    const rows = await this.db.query<LinkRow>(`SELECT ${COLUMNS} FROM payment_links WHERE id = $1`, [id]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async list(query: LinkListQuery): Promise<LinkRecord[]> {
    const c = new Conditions([query.scope.merchantId]);
    if (query.scope.shopId !== undefined) c.add(`shop_id = ${c.param(query.scope.shopId)}`);
    if (query.shopId !== null) c.add(`shop_id = ${c.param(query.shopId)}`);
    if (query.status !== null) c.add(`status = ${c.param(query.status)}`);
    if (query.orderId !== null) c.add(`order_id = ${c.param(query.orderId)}`);
    if (query.after) {
      const at = c.param(query.after.createdAtMicros.toString());
      const id = c.param(query.after.id);
      c.add(`(created_at, id) < (${FROM_MICROS(at)}, ${id}::uuid)`);
    }
    const limit = c.param(query.limit);
    const rows = await this.db.query<LinkRow>(
      `SELECT ${COLUMNS} FROM payment_links
        WHERE merchant_id = $1 ${c.toString()}
        ORDER BY created_at DESC, id DESC
        LIMIT ${limit}`,
      c.params,
    );
    return rows.map(toRecord);
  }

  async transition(id: string, to: FinalStatus, scope?: LinkScope): Promise<LinkRecord | null> {
    const move = MOVES[to];
    const c = new Conditions([id, to]);
    c.scope(scope);
    const rows = await this.db.query<LinkRow>(
      `UPDATE payment_links SET status = $2, updated_at = now() ${move.set}
        WHERE id = $1 AND status = 'pending' ${move.where} ${c.toString()}
        RETURNING ${COLUMNS}`,
      c.params,
    );
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async expireDue(merchantId: string): Promise<number> {
    const rows = await this.db.query<{ id: string }>(
      `UPDATE payment_links SET status = 'expired', updated_at = now()
        WHERE merchant_id = $1 AND status = 'pending' AND expires_at <= now()
        RETURNING id`,
      [merchantId],
    );
    return rows.length;
  }
}
