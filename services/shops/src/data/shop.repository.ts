import { returnedRow, type Db } from '@pl/db';
import { invalidField, notFound } from '@pl/errors';
import { cashierKeyDigest, cashierKeyMode, newCashierKey } from '../domain/cashier-key';
import type { SecretBox } from '../domain/secret-box';
import type { CreatedShop, NewShop, Shop, ShopPageQuery, ShopPatch, ShopStore, StoredPayoutSchedule, WebhookTarget } from '../domain/shop';
import type { CryptoNetwork, EventType, FeePayer, Mode, ScheduledPayoutShop, ShopStatus } from '@pl/contracts';

interface ShopRow {
  id: string;
  merchant_id: string;
  name: string;
  status: ShopStatus;
  fee_payer: FeePayer;
  crypto_bps: number;
  sbp_bps: number;
  webhook_url: string | null;
  webhook_events: EventType[];
  sbp_enabled: boolean;
  crypto_networks: CryptoNetwork[];
  has_webhook_secret: boolean;
  previous_secret_valid_until: Date | null;
  payout_schedules: Partial<Record<Mode, ScheduleJson>>;
  created_at: Date;
  updated_at: Date;
}

/** A schedule as the shop's row carries it (jsonb keeps bigint as a number: kopecks stay far below 2^53). */
interface ScheduleJson {
  interval: StoredPayoutSchedule['interval'];
  destination_id: string;
  minimum_kopecks: number;
}

interface ScheduleRow {
  shop_id: string;
  merchant_id: string;
  livemode: boolean;
  interval: StoredPayoutSchedule['interval'];
  destination_id: string;
  minimum_kopecks: string;
  updated_at: Date;
}

const toStoredSchedule = (json: ScheduleJson | undefined): StoredPayoutSchedule | null =>
  json ? { interval: json.interval, destinationId: json.destination_id, minimumKopecks: json.minimum_kopecks } : null;

/** A previous secret whose overlap has ended is as good as none; the database's clock decides. */
const PREVIOUS_SECRET_LIVE = 's.previous_secret_valid_until > now()';

const SHOP_COLUMNS = `s.id, s.merchant_id, s.name, s.status, s.fee_payer, s.crypto_bps, s.sbp_bps, s.webhook_url, s.webhook_events,
  s.sbp_enabled, s.crypto_networks,
  s.webhook_secret_enc IS NOT NULL AS has_webhook_secret,
  CASE WHEN ${PREVIOUS_SECRET_LIVE} THEN s.previous_secret_valid_until END AS previous_secret_valid_until,
  (SELECT coalesce(jsonb_object_agg(CASE WHEN ps.livemode THEN 'live' ELSE 'test' END,
            jsonb_build_object('interval', ps.interval, 'destination_id', ps.destination_id, 'minimum_kopecks', ps.minimum_kopecks)), '{}')
     FROM payout_schedules ps WHERE ps.shop_id = s.id) AS payout_schedules,
  s.created_at, s.updated_at`;

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
  webhookEvents: r.webhook_events,
  paymentMethods: { sbp: r.sbp_enabled, crypto_networks: r.crypto_networks },
  hasWebhookSecret: r.has_webhook_secret,
  previousSecretValidUntil: r.previous_secret_valid_until,
  payoutSchedules: { live: toStoredSchedule(r.payout_schedules.live), test: toStoredSchedule(r.payout_schedules.test) },
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Columns a patch may set, each with how its value is stored. A fixed map keeps the SQL free of input. */
const PATCHABLE: Record<Exclude<keyof ShopPatch, 'payment_methods'>, string> = {
  name: 'name',
  status: 'status',
  fee_payer: 'fee_payer',
  crypto_bps: 'crypto_bps',
  sbp_bps: 'sbp_bps',
  webhook_url: 'webhook_url',
  webhook_secret: 'webhook_secret_enc',
  webhook_events: 'webhook_events',
};

/** The database's rule that a shop takes at least one method, judged on the row as a patch leaves it. */
const METHOD_ON_CONSTRAINT = 'shops_payment_method_on';

const isNoMethodLeft = (e: unknown): boolean =>
  typeof e === 'object' &&
  e !== null &&
  (e as { code?: unknown }).code === '23514' &&
  (e as { constraint?: unknown }).constraint === METHOD_ON_CONSTRAINT;

/** The columns of a methods patch: only the members given move. */
function methodSets(patch: ShopPatch, params: unknown[]): string[] {
  const methods = patch.payment_methods;
  if (!methods) return [];
  const sets: string[] = [];
  if (methods.sbp !== undefined) {
    params.push(methods.sbp);
    sets.push(`sbp_enabled = $${params.length}`);
  }
  if (methods.crypto_networks !== undefined) {
    params.push(methods.crypto_networks);
    sets.push(`crypto_networks = $${params.length}`);
  }
  return sets;
}

/** The mode of a key this service minted; anything else reaching the data layer is a bug, not a caller's mistake. */
function requireMode(cashierKey: string): Mode {
  const mode = cashierKeyMode(cashierKey);
  if (mode === null) throw new Error('Not a cashier key: it has neither cashier key prefix');
  return mode;
}

/** Shops and their cashier keys: the shops service's own data. Webhook secrets are sealed at rest. */
export class ShopRepository implements ShopStore {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  /**
   * Inserts a validated shop with its first cashier key of each mode; the keys are returned once and kept only as
   * digests.
   */
  async createShop(input: NewShop): Promise<CreatedShop> {
    const cashierKey = newCashierKey('live');
    const testCashierKey = newCashierKey('test');
    const sealed = input.webhook_secret === null ? null : this.secrets.seal(input.webhook_secret);
    const shop = await this.db.transaction(async (c) => {
      const { rows } = await c.query<ShopRow>(
        `INSERT INTO shops AS s (merchant_id, name, status, fee_payer, crypto_bps, sbp_bps, webhook_url, webhook_secret_enc)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${SHOP_COLUMNS}`,
        [input.merchant_id, input.name, input.status, input.fee_payer, input.crypto_bps, input.sbp_bps, input.webhook_url, sealed],
      );
      const row = returnedRow(rows);
      await c.query("INSERT INTO cashier_keys (key_sha256, shop_id, mode) VALUES ($1, $2, 'live'), ($3, $2, 'test')", [
        cashierKeyDigest(cashierKey),
        row.id,
        cashierKeyDigest(testCashierKey),
      ]);
      return toShop(row);
    });
    return { shop, cashierKey, testCashierKey };
  }

  /** Applies a validated patch; an empty patch returns the shop unchanged. Unknown shop: not_found. */
  async updateShop(id: number, patch: ShopPatch): Promise<Shop> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    for (const key of Object.keys(PATCHABLE) as (keyof typeof PATCHABLE)[]) {
      const value = patch[key];
      if (value === undefined) continue;
      const stored = key === 'webhook_secret' && value !== null ? this.secrets.seal(String(value)) : value;
      params.push(stored);
      sets.push(`${PATCHABLE[key]} = $${params.length}`);
      // A secret set outright (by an operator) replaces the current one at once: no earlier secret signs on.
      if (key === 'webhook_secret') sets.push('previous_secret_enc = NULL', 'previous_secret_valid_until = NULL');
    }
    sets.push(...methodSets(patch, params));
    if (sets.length === 0) {
      const shop = await this.getShop(id);
      if (!shop) throw notFound('Shop not found');
      return shop;
    }
    const rows = await this.db
      .query<ShopRow>(`UPDATE shops AS s SET ${sets.join(', ')}, updated_at = now() WHERE s.id = $1 RETURNING ${SHOP_COLUMNS}`, params)
      .catch((e: unknown) => {
        if (isNoMethodLeft(e)) throw invalidField('payment_methods', 'must leave at least one payment method on');
        throw e;
      });
    if (!rows[0]) throw notFound('Shop not found');
    return toShop(rows[0]);
  }

  async getShop(id: number): Promise<Shop | null> {
    const rows = await this.db.query<ShopRow>(`SELECT ${SHOP_COLUMNS} FROM shops s WHERE s.id = $1`, [id]);
    return rows[0] ? toShop(rows[0]) : null;
  }

  async listShops(query: ShopPageQuery): Promise<Shop[]> {
    const rows = await this.db.query<ShopRow>(
      `SELECT ${SHOP_COLUMNS} FROM shops s
        WHERE s.merchant_id = $1 AND ($2::bigint IS NULL OR s.id < $2::bigint)
        ORDER BY s.id DESC
        LIMIT $3`,
      [query.merchantId, query.beforeId === null ? null : query.beforeId.toString(), query.limit],
    );
    return rows.map(toShop);
  }

  /** Every merchant's shops, newest first, one keyset page at a time: the operators' view (admin CLI `shop:list`). */
  async listAllShops(query: Omit<ShopPageQuery, 'merchantId'>): Promise<Shop[]> {
    const rows = await this.db.query<ShopRow>(
      `SELECT ${SHOP_COLUMNS} FROM shops s WHERE $1::bigint IS NULL OR s.id < $1::bigint ORDER BY s.id DESC LIMIT $2`,
      [query.beforeId === null ? null : query.beforeId.toString(), query.limit],
    );
    return rows.map(toShop);
  }

  /**
   * One statement, so the row lock orders concurrent rotations: SET reads the row as it was, so the secret being
   * replaced becomes the previous one (dropping any earlier previous secret). Unknown shop: not_found.
   */
  async rotateWebhookSecret(shopId: number, secret: string, overlapMinutes: number): Promise<Date | null> {
    const rows = await this.db.query<{ previous_secret_valid_until: Date | null }>(
      `UPDATE shops SET
         webhook_secret_enc = $2,
         previous_secret_enc = CASE WHEN $3::int > 0 THEN webhook_secret_enc END,
         previous_secret_valid_until = CASE WHEN $3::int > 0 AND webhook_secret_enc IS NOT NULL
                                            THEN now() + make_interval(mins => $3::int) END,
         updated_at = now()
       WHERE id = $1
       RETURNING previous_secret_valid_until`,
      [shopId, this.secrets.seal(secret), overlapMinutes],
    );
    if (!rows[0]) throw notFound('Shop not found');
    return rows[0].previous_secret_valid_until;
  }

  /**
   * Revokes the shop's active cashier key of the new key's mode (its prefix says which) and stores the new key's
   * digest, in one transaction; the other mode's key is untouched. The shop row is locked first, so two concurrent
   * reissues run one after the other and only the later key stays active.
   */
  async replaceCashierKeys(shopId: number, cashierKey: string): Promise<void> {
    const mode = requireMode(cashierKey);
    await this.db.transaction(async (c) => {
      const { rowCount } = await c.query('SELECT 1 FROM shops WHERE id = $1 FOR UPDATE', [shopId]);
      if (rowCount === 0) throw notFound('Shop not found');
      await c.query('UPDATE cashier_keys SET revoked_at = now() WHERE shop_id = $1 AND mode = $2 AND revoked_at IS NULL', [shopId, mode]);
      await c.query('INSERT INTO cashier_keys (key_sha256, shop_id, mode) VALUES ($1, $2, $3)', [cashierKeyDigest(cashierKey), shopId, mode]);
    });
  }

  /**
   * The shop of an active (not revoked) cashier key of either mode, or null. Looked up by digest, so no timing
   * leak on the key; the stored mode must be the one the key's prefix names, so a key can never act in the other.
   */
  async findByCashierKey(cashierKey: string): Promise<Shop | null> {
    const mode = cashierKeyMode(cashierKey);
    if (mode === null) return null;
    const rows = await this.db.query<ShopRow>(
      `SELECT ${SHOP_COLUMNS} FROM cashier_keys k JOIN shops s ON s.id = k.shop_id
        WHERE k.key_sha256 = $1 AND k.mode = $2 AND k.revoked_at IS NULL`,
      [cashierKeyDigest(cashierKey), mode],
    );
    return rows[0] ? toShop(rows[0]) : null;
  }

  /**
   * Where to send a shop's webhooks, the plain secrets to sign them (the previous one only while its overlap
   * lasts) and the event types it is sent; the URL is null when it has none. Unknown shop: not_found.
   */
  async getWebhookTarget(shopId: number): Promise<WebhookTarget> {
    const rows = await this.db.query<{
      webhook_url: string | null;
      webhook_events: EventType[];
      webhook_secret_enc: Buffer | null;
      previous_secret_enc: Buffer | null;
    }>(
      `SELECT s.webhook_url, s.webhook_events, s.webhook_secret_enc,
              CASE WHEN ${PREVIOUS_SECRET_LIVE} THEN s.previous_secret_enc END AS previous_secret_enc
         FROM shops s WHERE s.id = $1`,
      [shopId],
    );
    const row = rows[0];
    if (!row) throw notFound('Shop not found');
    // Without an address there is nothing to sign for: no secret leaves the data layer.
    if (row.webhook_url === null) return { url: null, secret: null, previousSecret: null, webhookEvents: row.webhook_events };
    const open = (box: Buffer | null): string | null => (box ? this.secrets.open(box) : null);
    return {
      url: row.webhook_url,
      secret: open(row.webhook_secret_enc),
      previousSecret: open(row.previous_secret_enc),
      webhookEvents: row.webhook_events,
    };
  }

  /**
   * Sets or ends one mode's schedule and touches the shop's `updated_at`, in one transaction under the shop's row lock
   * (so `shops.changed` copies and the answer agree). Unknown shop: not_found.
   */
  async setPayoutSchedule(shopId: number, mode: Mode, schedule: StoredPayoutSchedule | null): Promise<Shop> {
    const livemode = mode === 'live';
    return this.db.transaction(async (c) => {
      const { rowCount } = await c.query('UPDATE shops SET updated_at = now() WHERE id = $1', [shopId]);
      if (rowCount === 0) throw notFound('Shop not found');
      if (schedule === null) {
        await c.query('DELETE FROM payout_schedules WHERE shop_id = $1 AND livemode = $2', [shopId, livemode]);
      } else {
        await c.query(
          `INSERT INTO payout_schedules (shop_id, livemode, interval, destination_id, minimum_kopecks) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (shop_id, livemode) DO UPDATE
             SET interval = EXCLUDED.interval, destination_id = EXCLUDED.destination_id,
                 minimum_kopecks = EXCLUDED.minimum_kopecks, updated_at = now()`,
          [shopId, livemode, schedule.interval, schedule.destinationId, schedule.minimumKopecks],
        );
      }
      const { rows } = await c.query<ShopRow>(`SELECT ${SHOP_COLUMNS} FROM shops s WHERE s.id = $1`, [shopId]);
      return toShop(returnedRow(rows));
    });
  }

  /** Schedules in (shop, mode) order, test before live; one page after `after`. */
  async listPayoutSchedules(after: { shopId: number; mode: Mode } | null, limit: number): Promise<ScheduledPayoutShop[]> {
    const rows = await this.db.query<ScheduleRow>(
      `SELECT ps.shop_id, s.merchant_id, ps.livemode, ps.interval, ps.destination_id, ps.minimum_kopecks, ps.updated_at
         FROM payout_schedules ps JOIN shops s ON s.id = ps.shop_id
        WHERE $1::bigint IS NULL OR (ps.shop_id, ps.livemode) > ($1::bigint, $2::boolean)
        ORDER BY ps.shop_id, ps.livemode
        LIMIT $3`,
      [after?.shopId ?? null, after ? after.mode === 'live' : null, limit],
    );
    return rows.map((r) => ({
      shop_id: Number(r.shop_id),
      merchant_id: r.merchant_id,
      mode: r.livemode ? 'live' : 'test',
      interval: r.interval,
      destination_id: r.destination_id,
      minimum_kopecks: Number(r.minimum_kopecks),
      set_at: r.updated_at.toISOString(),
    }));
  }
}
