import { returnedRow, type Db } from '@pl/db';
import { notFound } from '@pl/errors';
import { cashierKeyDigest, newCashierKey } from '../domain/cashier-key';
import type { SecretBox } from '../domain/secret-box';
import type { NewShop, Shop, ShopPatch, ShopStore, WebhookTarget } from '../domain/shop';
import type { FeePayer, ShopStatus } from '@pl/contracts';

interface ShopRow {
  id: string;
  merchant_id: string;
  name: string;
  status: ShopStatus;
  fee_payer: FeePayer;
  crypto_bps: number;
  sbp_bps: number;
  webhook_url: string | null;
  has_webhook_secret: boolean;
  created_at: Date;
  updated_at: Date;
}

const SHOP_COLUMNS = `s.id, s.merchant_id, s.name, s.status, s.fee_payer, s.crypto_bps, s.sbp_bps, s.webhook_url,
  s.webhook_secret_enc IS NOT NULL AS has_webhook_secret, s.created_at, s.updated_at`;

// bigint arrives as text from pg; shop ids stay far below 2^53.
const toShop = (r: ShopRow): Shop => ({
  id: Number(r.id),
  merchantId: r.merchant_id,
  name: r.name,
  status: r.status,
  feePayer: r.fee_payer,
  cryptoBps: r.crypto_bps,
  sbpBps: r.sbp_bps,
  webhookUrl: r.webhook_url,
  hasWebhookSecret: r.has_webhook_secret,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Columns a patch may set, each with how its value is stored. A fixed map keeps the SQL free of input. */
const PATCHABLE: Record<keyof ShopPatch, string> = {
  name: 'name',
  status: 'status',
  fee_payer: 'fee_payer',
  crypto_bps: 'crypto_bps',
  sbp_bps: 'sbp_bps',
  webhook_url: 'webhook_url',
  webhook_secret: 'webhook_secret_enc',
};

/** Shops and their cashier keys: the shops service's own data. Webhook secrets are sealed at rest. */
export class ShopRepository implements ShopStore {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  /** Inserts a validated shop with its first cashier key; the key is returned once and kept only as a digest. */
  async createShop(input: NewShop): Promise<{ shop: Shop; cashierKey: string }> {
    const cashierKey = newCashierKey();
    const sealed = input.webhook_secret === null ? null : this.secrets.seal(input.webhook_secret);
    const shop = await this.db.transaction(async (c) => {
      const { rows } = await c.query<ShopRow>(
        `INSERT INTO shops AS s (merchant_id, name, status, fee_payer, crypto_bps, sbp_bps, webhook_url, webhook_secret_enc)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${SHOP_COLUMNS}`,
        [input.merchant_id, input.name, input.status, input.fee_payer, input.crypto_bps, input.sbp_bps, input.webhook_url, sealed],
      );
      const row = returnedRow(rows);
      await c.query('INSERT INTO cashier_keys (key_sha256, shop_id) VALUES ($1, $2)', [cashierKeyDigest(cashierKey), row.id]);
      return toShop(row);
    });
    return { shop, cashierKey };
  }

  /** Applies a validated patch; an empty patch returns the shop unchanged. Unknown shop: not_found. */
  async updateShop(id: number, patch: ShopPatch): Promise<Shop> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    for (const key of Object.keys(PATCHABLE) as (keyof ShopPatch)[]) {
      const value = patch[key];
      if (value === undefined) continue;
      const stored = key === 'webhook_secret' && value !== null ? this.secrets.seal(String(value)) : value;
      params.push(stored);
      sets.push(`${PATCHABLE[key]} = $${params.length}`);
    }
    if (sets.length === 0) {
      const shop = await this.getShop(id);
      if (!shop) throw notFound('Shop not found');
      return shop;
    }
    const rows = await this.db.query<ShopRow>(
      `UPDATE shops AS s SET ${sets.join(', ')}, updated_at = now() WHERE s.id = $1 RETURNING ${SHOP_COLUMNS}`,
      params,
    );
    if (!rows[0]) throw notFound('Shop not found');
    return toShop(rows[0]);
  }

  async getShop(id: number): Promise<Shop | null> {
    const rows = await this.db.query<ShopRow>(`SELECT ${SHOP_COLUMNS} FROM shops s WHERE s.id = $1`, [id]);
    return rows[0] ? toShop(rows[0]) : null;
  }

  /** The shop of an active (not revoked) cashier key, or null. Looked up by digest, so no timing leak on the key. */
  async findByCashierKey(cashierKey: string): Promise<Shop | null> {
    const rows = await this.db.query<ShopRow>(
      `SELECT ${SHOP_COLUMNS} FROM cashier_keys k JOIN shops s ON s.id = k.shop_id
        WHERE k.key_sha256 = $1 AND k.revoked_at IS NULL`,
      [cashierKeyDigest(cashierKey)],
    );
    return rows[0] ? toShop(rows[0]) : null;
  }

  /** Where to send a shop's webhooks and the plain secret to sign them; null when it has no URL. Unknown shop: not_found. */
  async getWebhookTarget(shopId: number): Promise<WebhookTarget | null> {
    const rows = await this.db.query<{ webhook_url: string | null; webhook_secret_enc: Buffer | null }>(
      'SELECT webhook_url, webhook_secret_enc FROM shops WHERE id = $1',
      [shopId],
    );
    const row = rows[0];
    if (!row) throw notFound('Shop not found');
    if (row.webhook_url === null) return null;
    return { url: row.webhook_url, secret: row.webhook_secret_enc ? this.secrets.open(row.webhook_secret_enc) : null };
  }
}
