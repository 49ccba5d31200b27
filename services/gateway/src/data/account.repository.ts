import { randomUUID } from 'node:crypto';
import type { Db } from '@pl/db';
import { AppError } from '@pl/errors';
import { digestsEqual, DUMMY_PASSWORD_HASH, hashPassword, newApiKeyPair, sha256, verifyPassword } from '../domain/credentials';

export interface Merchant {
  id: string;
  email: string;
  emailConfirmed: boolean;
}

interface MerchantRow {
  id: string;
  email: string;
  email_confirmed: boolean;
  password_hash: string;
}

const toMerchant = (r: MerchantRow): Merchant => ({ id: r.id, email: r.email, emailConfirmed: r.email_confirmed });

/** Merchant accounts and their API keys: the gateway's own data. */
export class AccountRepository {
  constructor(private readonly db: Db) {}

  async createMerchant(input: { email: string; password: string; emailConfirmed: boolean }): Promise<{
    merchant: Merchant;
    apiKey: string;
    apiSecret: string;
  }> {
    const id = randomUUID();
    const passwordHash = await hashPassword(input.password);
    const { apiKey, apiSecret } = newApiKeyPair();
    try {
      await this.db.transaction(async (c) => {
        await c.query('INSERT INTO merchants (id, email, password_hash, email_confirmed) VALUES ($1, $2, $3, $4)', [
          id,
          input.email,
          passwordHash,
          input.emailConfirmed,
        ]);
        await c.query('INSERT INTO api_keys (public_key, merchant_id, secret_sha256) VALUES ($1, $2, $3)', [apiKey, id, sha256(apiSecret)]);
      });
    } catch (e) {
      if ((e as { code?: string }).code === '23505') {
        throw new AppError('conflict', 'account.err.email_taken', 'An account with this email already exists');
      }
      throw e;
    }
    return { merchant: { id, email: input.email, emailConfirmed: input.emailConfirmed }, apiKey, apiSecret };
  }

  /** The merchant owning an active key pair, or null. The secret is compared in constant time. */
  async findByApiKey(publicKey: string, secret: string): Promise<Merchant | null> {
    const rows = await this.db.query<MerchantRow & { secret_sha256: Buffer }>(
      `SELECT m.id, m.email, m.email_confirmed, m.password_hash, k.secret_sha256
         FROM api_keys k JOIN merchants m ON m.id = k.merchant_id
        WHERE k.public_key = $1 AND k.revoked_at IS NULL`,
      [publicKey],
    );
    const row = rows[0];
    const matches = digestsEqual(sha256(secret), row?.secret_sha256 ?? Buffer.alloc(32));
    return row && matches ? toMerchant(row) : null;
  }

  /** The merchant for an email and password, or null; an unknown email takes as long as a wrong password. */
  async findByLogin(email: string, password: string): Promise<Merchant | null> {
    const rows = await this.db.query<MerchantRow>('SELECT id, email, email_confirmed, password_hash FROM merchants WHERE lower(email) = lower($1)', [
      email,
    ]);
    const row = rows[0];
    const ok = await verifyPassword(password, row?.password_hash ?? DUMMY_PASSWORD_HASH);
    return row && ok ? toMerchant(row) : null;
  }

  async findById(id: string): Promise<Merchant | null> {
    const rows = await this.db.query<MerchantRow>('SELECT id, email, email_confirmed, password_hash FROM merchants WHERE id = $1', [id]);
    return rows[0] ? toMerchant(rows[0]) : null;
  }
}
