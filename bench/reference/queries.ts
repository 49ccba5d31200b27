import type { Pool } from 'pg';

/**
 * The platform's statements, schema-qualified because one reference process reads three services'
 * schemas. Kept textually equal to services/links/src/data/link.repository.ts and link.row.ts and
 * services/gateway/src/data/account.repository.ts, so the reference pays the same database cost.
 */
const LINK_COLUMNS = `id, merchant_id, shop_id, order_id, description, amount, fee_bps, fee_percent_bp, crypto_bps, sbp_bps,
  fee_payer, payer_amount, merchant_credit, platform_revenue, status, gateway_provider, gateway_payment_id,
  to_currency, network, deposit_address, payer_currency, payer_crypto_amount, qr, expires_at, paid_at, created_at,
  (extract(epoch FROM created_at) * 1000000)::bigint AS created_at_us, updated_at`;

const FROM_MICROS = (param: string): string => `(timestamptz 'epoch' + ${param}::bigint * interval '1 microsecond')`;

export interface LinkRow {
  id: string;
  merchant_id: string;
  shop_id: string;
  order_id: string | null;
  description: string | null;
  amount: string;
  fee_bps: number;
  fee_percent_bp: number;
  fee_payer: string;
  payer_amount: string;
  merchant_credit: string;
  platform_revenue: string;
  status: string;
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

export interface ShopRow {
  id: string;
  merchant_id: string;
  status: string;
  fee_payer: 'merchant' | 'client' | 'split';
  crypto_bps: number;
  sbp_bps: number;
}

export interface NewLinkValues {
  id: string;
  merchantId: string;
  shopId: number;
  orderId: string | null;
  description: string | null;
  amount: number;
  bps: number;
  sbpBps: number;
  feePayer: string;
  payerAmount: number;
  merchantCredit: number;
  platformRevenue: number;
  expiresInMinutes: number;
}

export class ReferenceQueries {
  constructor(private readonly pool: Pool) {}

  async apiKey(publicKey: string): Promise<{ id: string; email_confirmed: boolean; secret_sha256: Buffer } | undefined> {
    const { rows } = await this.pool.query<{ id: string; email: string; email_confirmed: boolean; password_hash: string; secret_sha256: Buffer }>(
      `SELECT m.id, m.email, m.email_confirmed, m.password_hash, k.secret_sha256
         FROM gateway.api_keys k JOIN gateway.merchants m ON m.id = k.merchant_id
        WHERE k.public_key = $1 AND k.revoked_at IS NULL`,
      [publicKey],
    );
    return rows[0];
  }

  async shop(id: number): Promise<ShopRow | undefined> {
    const { rows } = await this.pool.query<ShopRow>('SELECT id, merchant_id, status, fee_payer, crypto_bps, sbp_bps FROM shops.shops WHERE id = $1', [
      id,
    ]);
    return rows[0];
  }

  async insert(l: NewLinkValues): Promise<LinkRow> {
    const { rows } = await this.pool.query<LinkRow>(
      `INSERT INTO links.payment_links (id, merchant_id, shop_id, order_id, description, currency, amount, fee_bps,
         fee_percent_bp, crypto_bps, sbp_bps, fee_payer, payer_amount, merchant_credit, platform_revenue, status,
         expires_at, livemode)
       VALUES ($1, $2, $3, $4, $5, 'RUB', $6, $7, $8, $9, $10, $11, $12, $13, $14, 'pending',
         now() + $15::int * interval '1 minute', true)
       RETURNING ${LINK_COLUMNS}`,
      [
        l.id,
        l.merchantId,
        l.shopId,
        l.orderId,
        l.description,
        l.amount,
        l.bps,
        l.bps,
        l.bps,
        l.sbpBps,
        l.feePayer,
        l.payerAmount,
        l.merchantCredit,
        l.platformRevenue,
        l.expiresInMinutes,
      ],
    );
    return rows[0]!;
  }

  async byId(id: string): Promise<LinkRow | undefined> {
    const { rows } = await this.pool.query<LinkRow>(`SELECT ${LINK_COLUMNS} FROM links.payment_links WHERE id = $1`, [id]);
    return rows[0];
  }

  async expire(id: string): Promise<LinkRow | undefined> {
    const { rows } = await this.pool.query<LinkRow>(
      `UPDATE links.payment_links SET status = $2, updated_at = now()
        WHERE id = $1 AND status = 'pending' AND expires_at <= now()
        RETURNING ${LINK_COLUMNS}`,
      [id, 'expired'],
    );
    return rows[0];
  }

  async cancel(id: string, merchantId: string): Promise<LinkRow | undefined> {
    const { rows } = await this.pool.query<LinkRow>(
      `UPDATE links.payment_links SET status = $2, updated_at = now()
        WHERE id = $1 AND status = 'pending' AND expires_at > now() AND merchant_id = $3
        RETURNING ${LINK_COLUMNS}`,
      [id, 'canceled', merchantId],
    );
    return rows[0];
  }

  async page(merchantId: string, after: { createdAtMicros: bigint; id: string } | null, limit: number): Promise<LinkRow[]> {
    const params: unknown[] = [merchantId];
    let where = '';
    if (after) {
      params.push(after.createdAtMicros.toString(), after.id);
      where = `AND (created_at, id) < (${FROM_MICROS('$2')}, $3::uuid)`;
    }
    params.push(limit);
    const { rows } = await this.pool.query<LinkRow>(
      `SELECT ${LINK_COLUMNS} FROM links.payment_links
        WHERE merchant_id = $1 AND livemode ${where}
        ORDER BY created_at DESC, id DESC
        LIMIT $${params.length}`,
      params,
    );
    return rows;
  }
}
