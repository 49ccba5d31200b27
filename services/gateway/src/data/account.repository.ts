import { appendAuditEvent } from './audit-log.repository';
import { randomUUID } from 'node:crypto';
import type { Mode } from '@pl/contracts';
import { returnedRow, type Db } from '@pl/db';
import { apiKeyInactive, apiKeyLimitReached, AppError, notFound } from '@pl/errors';
import type { ApiKey, NewApiKey } from '../domain/api-keys';
import { digestsEqual, newApiKeyPair, sha256 } from '../domain/credentials';
import { DEFAULT_SCRYPT, PasswordHasher } from '../domain/password-hash';

/** The connection of one transaction, as `Db.transaction` hands it over. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Merchant {
  id: string;
  /** The account's contact address: the email it was opened with. */
  email: string;
  name: string;
  /** One of the account's owners has confirmed their email: what API-key callers act with. */
  emailConfirmed: boolean;
  createdAt: Date;
}

/** The owner of an API key pair, and when that key stops (a reissued key's grace period), if ever. */
export type ApiKeyOwner = Merchant & { keyExpiresAt: Date | null };

interface MerchantRow {
  id: string;
  email: string;
  name: string;
  email_confirmed: boolean;
  created_at: Date;
}

interface ApiKeyRow {
  id: string;
  merchant_id: string;
  label: string | null;
  public_key: string;
  mode: Mode;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

/** An account is confirmed once one of its owners has confirmed their email. */
const OWNER_CONFIRMED = `EXISTS (SELECT 1 FROM memberships o JOIN users u ON u.id = o.user_id
   WHERE o.merchant_id = m.id AND o.role = 'owner' AND u.email_confirmed) AS email_confirmed`;
const MERCHANT_COLUMNS = `m.id, m.email, m.name, m.created_at, ${OWNER_CONFIRMED}`;
const KEY_COLUMNS = 'id, merchant_id, label, public_key, mode, created_at, last_used_at, expires_at, revoked_at';
/** A key that is neither revoked nor past its expiry. */
const ACTIVE = 'revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())';

const toMerchant = (r: MerchantRow): Merchant => ({
  id: r.id,
  email: r.email,
  name: r.name,
  emailConfirmed: r.email_confirmed,
  createdAt: r.created_at,
});

const toApiKey = (r: ApiKeyRow): ApiKey => ({
  id: r.id,
  merchantId: r.merchant_id,
  label: r.label,
  publicKey: r.public_key,
  mode: r.mode,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
});

const isActive = (key: ApiKey, now: Date): boolean => key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now);

/** Merchant accounts and their API keys: the gateway's own data. */
export class AccountRepository {
  constructor(
    private readonly db: Db,
    /** How new users' passwords are hashed: OWASP's minimum unless the caller's configuration says otherwise. */
    private readonly passwords: PasswordHasher = new PasswordHasher(DEFAULT_SCRYPT),
  ) {}

  /**
   * A new account with its first user as owner, and a live key pair and a test one, so the merchant can integrate
   * in test mode from the start (the operators' `merchant:create`). An email some user already has is 409
   * `account.err.email_taken`.
   */
  async createMerchant(input: { email: string; password: string; emailConfirmed: boolean; name?: string }): Promise<{
    merchant: Merchant;
    userId: string;
    apiKey: string;
    apiSecret: string;
    testApiKey: string;
    testApiSecret: string;
  }> {
    const passwordHash = await this.passwords.hash(input.password);
    const live = newApiKeyPair('live');
    const test = newApiKeyPair('test');
    try {
      const { merchantId, userId } = await this.db.transaction(async (c) => {
        const userId = await insertUser(c, { email: input.email, passwordHash, emailConfirmed: input.emailConfirmed, language: 'ru' });
        const merchantId = await insertAccount(c, { email: input.email, name: input.name ?? input.email, ownerId: userId });
        await c.query(`INSERT INTO api_keys (public_key, merchant_id, secret_sha256, mode) VALUES ($1, $2, $3, 'live'), ($4, $2, $5, 'test')`, [
          live.apiKey,
          merchantId,
          sha256(live.apiSecret),
          test.apiKey,
          sha256(test.apiSecret),
        ]);
        return { merchantId, userId };
      });
      const merchant = await this.findById(merchantId);
      if (!merchant) throw new Error('the account just created is missing');
      return { merchant, userId, apiKey: live.apiKey, apiSecret: live.apiSecret, testApiKey: test.apiKey, testApiSecret: test.apiSecret };
    } catch (e) {
      if ((e as { code?: string }).code === '23505') {
        throw new AppError('conflict', 'account.err.email_taken', 'An account with this email already exists');
      }
      throw e;
    }
  }

  /**
   * The merchant owning an active key pair (neither revoked nor expired), or null, with the key's expiry so a
   * cache never keeps it past that. The secret is compared in constant time.
   */
  async findByApiKey(publicKey: string, secret: string): Promise<ApiKeyOwner | null> {
    const rows = await this.db.query<MerchantRow & { secret_sha256: Buffer; key_expires_at: Date | null }>(
      `SELECT ${MERCHANT_COLUMNS}, k.secret_sha256, k.expires_at AS key_expires_at
         FROM api_keys k JOIN merchants m ON m.id = k.merchant_id
        WHERE k.public_key = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`,
      [publicKey],
    );
    const row = rows[0];
    const matches = digestsEqual(sha256(secret), row?.secret_sha256 ?? Buffer.alloc(32));
    return row && matches ? { ...toMerchant(row), keyExpiresAt: row.key_expires_at } : null;
  }

  async findById(id: string): Promise<Merchant | null> {
    const rows = await this.db.query<MerchantRow>(`SELECT ${MERCHANT_COLUMNS} FROM merchants m WHERE m.id = $1`, [id]);
    return rows[0] ? toMerchant(rows[0]) : null;
  }

  /**
   * Every merchant, newest first, one keyset page at a time (the operators' `merchant:list`): `limit` rows at most,
   * those after `after` (the last merchant of the previous page) when given.
   */
  async listMerchants(query: {
    after: { createdAtMicros: bigint; id: string } | null;
    limit: number;
  }): Promise<(Merchant & { createdAtMicros: bigint })[]> {
    const rows = await this.db.query<MerchantRow & { created_at_micros: string }>(
      `SELECT ${MERCHANT_COLUMNS}, (extract(epoch FROM m.created_at) * 1000000)::bigint AS created_at_micros FROM merchants m
        WHERE $1::bigint IS NULL OR (m.created_at, m.id) < (timestamptz 'epoch' + $1::bigint * interval '1 microsecond', $2::uuid)
        ORDER BY m.created_at DESC, m.id DESC
        LIMIT $3`,
      [query.after?.createdAtMicros.toString() ?? null, query.after?.id ?? null, query.limit],
    );
    return rows.map((r) => ({ ...toMerchant(r), createdAtMicros: BigInt(r.created_at_micros) }));
  }

  /** Every key of a merchant, revoked and expired ones too, newest first. */
  async listApiKeys(merchantId: string): Promise<ApiKey[]> {
    const rows = await this.db.query<ApiKeyRow>(
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE merchant_id = $1 ORDER BY created_at DESC, public_key DESC`,
      [merchantId],
    );
    return rows.map(toApiKey);
  }

  async findApiKey(id: string): Promise<ApiKey | null> {
    const rows = await this.db.query<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    return rows[0] ? toApiKey(rows[0]) : null;
  }

  /**
   * A new key of `mode`, unless the merchant already holds `max` active ones of either mode (422
   * `api_key.err.limit_reached`).
   */
  async createApiKey(merchantId: string, label: string | null, mode: Mode, max: number, ip: string | null): Promise<NewApiKey> {
    return this.db.transaction(async (c) => {
      await lockMerchant(c, merchantId);
      if ((await countActive(c, merchantId)) >= max) throw apiKeyLimitReached(max);
      const created = await insertKey(c, merchantId, label, mode);
      await appendAuditEvent(c, { merchantId, type: 'api_key.created', ip, subject: created.key.publicKey });
      return created;
    });
  }

  /**
   * A new key of the same mode in place of an active one, which stops `graceMinutes` from now (at once for 0). The
   * limit counts the old key while its grace lasts. A revoked or expired key is 409 `api_key.err.inactive`.
   */
  async reissueApiKey(id: string, graceMinutes: number, max: number, ip: string | null): Promise<{ replaced: ApiKey; issued: NewApiKey }> {
    return this.db.transaction(async (c) => {
      // The merchant first, as a create locks it, then the key.
      const owner = await c.query<{ merchant_id: string }>('SELECT merchant_id FROM api_keys WHERE id = $1', [id]);
      if (owner.rows[0]) await lockMerchant(c, owner.rows[0].merchant_id);
      const locked = await lockKey(c, id);
      if (!isActive(locked, await dbNow(c))) throw apiKeyInactive();
      const othersActive = (await countActive(c, locked.merchantId)) - 1;
      if (othersActive + (graceMinutes > 0 ? 2 : 1) > max) throw apiKeyLimitReached(max);
      const replaced = await c.query<ApiKeyRow>(
        `UPDATE api_keys SET expires_at = now() + make_interval(mins => $2) WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
        [id, graceMinutes],
      );
      const issued = await insertKey(c, locked.merchantId, locked.label, locked.mode);
      const old = toApiKey(returnedRow(replaced.rows));
      await appendAuditEvent(c, {
        merchantId: locked.merchantId,
        type: 'api_key.reissued',
        ip,
        subject: `${old.publicKey} -> ${issued.key.publicKey}`,
      });
      return { replaced: old, issued };
    });
  }

  /** Revokes an active key at once; a revoked or expired key is 409 `api_key.err.inactive`. */
  async revokeApiKey(id: string, ip: string | null): Promise<ApiKey> {
    return this.db.transaction(async (c) => {
      const locked = await lockKey(c, id);
      if (!isActive(locked, await dbNow(c))) throw apiKeyInactive();
      const rows = await c.query<ApiKeyRow>(`UPDATE api_keys SET revoked_at = now() WHERE id = $1 RETURNING ${KEY_COLUMNS}`, [id]);
      const revoked = toApiKey(returnedRow(rows.rows));
      await appendAuditEvent(c, { merchantId: revoked.merchantId, type: 'api_key.revoked', ip, subject: revoked.publicKey });
      return revoked;
    });
  }

  /** Notes that a key was used now; callers throttle this, it is not a write per request. */
  async touchApiKey(publicKey: string): Promise<void> {
    await this.db.query('UPDATE api_keys SET last_used_at = now() WHERE public_key = $1', [publicKey]);
  }
}

/** A new user; the caller's transaction maps a taken email (23505) to its answer. */
export async function insertUser(
  c: Tx,
  user: { email: string; passwordHash: string; emailConfirmed: boolean; language: 'ru' | 'en' },
): Promise<string> {
  const id = randomUUID();
  await c.query('INSERT INTO users (id, email, password_hash, email_confirmed, language) VALUES ($1, $2, $3, $4, $5)', [
    id,
    user.email,
    user.passwordHash,
    user.emailConfirmed,
    user.language,
  ]);
  return id;
}

/** A new account with `ownerId` as its one owner. */
export async function insertAccount(c: Tx, account: { email: string; name: string; ownerId: string }): Promise<string> {
  const id = randomUUID();
  await c.query('INSERT INTO merchants (id, email, name) VALUES ($1, $2, $3)', [id, account.email, account.name]);
  await c.query(`INSERT INTO memberships (user_id, merchant_id, role) VALUES ($1, $2, 'owner')`, [account.ownerId, id]);
  return id;
}

/** Serialises a merchant's key changes, so two parallel creates cannot both pass the limit. */
async function lockMerchant(c: Tx, merchantId: string): Promise<void> {
  await c.query('SELECT 1 FROM merchants WHERE id = $1 FOR UPDATE', [merchantId]);
}

async function lockKey(c: Tx, id: string): Promise<ApiKey> {
  const rows = await c.query<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1 FOR UPDATE`, [id]);
  const row = rows.rows[0];
  if (!row) throw notFound('API key not found');
  return toApiKey(row);
}

async function dbNow(c: Tx): Promise<Date> {
  const rows = await c.query<{ now: Date }>('SELECT now() AS now');
  return returnedRow(rows.rows).now;
}

/** The merchant's active keys of both modes: the limit is on the account's credentials, whatever their mode. */
async function countActive(c: Tx, merchantId: string): Promise<number> {
  const rows = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_keys WHERE merchant_id = $1 AND ${ACTIVE}`, [merchantId]);
  return returnedRow(rows.rows).n;
}

async function insertKey(c: Tx, merchantId: string, label: string | null, mode: Mode): Promise<NewApiKey> {
  const { apiKey, apiSecret } = newApiKeyPair(mode);
  const rows = await c.query<ApiKeyRow>(
    `INSERT INTO api_keys (public_key, merchant_id, secret_sha256, label, mode) VALUES ($1, $2, $3, $4, $5) RETURNING ${KEY_COLUMNS}`,
    [apiKey, merchantId, sha256(apiSecret), label, mode],
  );
  return { key: toApiKey(returnedRow(rows.rows)), apiSecret };
}
