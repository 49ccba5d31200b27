import { randomUUID } from 'node:crypto';
import type { Db } from '@pl/db';
import type { UserLanguage } from '@pl/contracts';
import { appendAuditEvent } from './audit-log.repository';
import { HAS_SECOND_FACTOR } from './has-second-factor';
import type { EnqueueMail } from './user.repository';
import type { Tx } from './account.repository';
import type { AddOutcome, NewPasskey, Passkey, PasskeyActor } from '../domain/passkeys';

interface PasskeyRow {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: Buffer;
  counter: string;
  transports: string[];
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

const COLUMNS = 'id, user_id, credential_id, public_key, counter::text AS counter, transports, name, created_at, last_used_at';

const toPasskey = (r: PasskeyRow): Passkey => ({
  id: r.id,
  userId: r.user_id,
  credentialId: r.credential_id,
  publicKey: new Uint8Array(r.public_key),
  counter: Number(r.counter),
  transports: r.transports,
  name: r.name,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
});

/**
 * A user's passkeys. Adding and removing one is audited in the session's account and mailed to the user ("a second
 * factor added or removed") in the transaction of the change, so neither is lost nor sent for a change rolled back.
 */
export class PasskeyRepository {
  constructor(
    private readonly db: Db,
    private readonly enqueueMail: EnqueueMail,
  ) {}

  /** The user's passkeys, oldest first. */
  async list(userId: string): Promise<Passkey[]> {
    const rows = await this.db.query<PasskeyRow>(`SELECT ${COLUMNS} FROM passkeys WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
    return rows.map(toPasskey);
  }

  async count(userId: string): Promise<number> {
    const rows = await this.db.query<{ n: number }>('SELECT count(*)::int AS n FROM passkeys WHERE user_id = $1', [userId]);
    return rows[0]?.n ?? 0;
  }

  /** One of the user's passkeys by its credential id; another user's is null. */
  async findByCredential(userId: string, credentialId: string): Promise<Passkey | null> {
    const rows = await this.db.query<PasskeyRow>(`SELECT ${COLUMNS} FROM passkeys WHERE user_id = $1 AND credential_id = $2`, [userId, credentialId]);
    return rows[0] ? toPasskey(rows[0]) : null;
  }

  /**
   * Stores a verified passkey unless the user already has `max` (their row is locked, so two registrations at once
   * cannot pass the limit together) or the credential is registered already.
   */
  async add(actor: PasskeyActor, passkey: NewPasskey, max: number): Promise<AddOutcome> {
    try {
      return await this.db.transaction(async (c): Promise<AddOutcome> => {
        const user = await c.query<{ email: string; language: UserLanguage }>('SELECT email, language FROM users WHERE id = $1 FOR UPDATE', [
          actor.userId,
        ]);
        const owner = user.rows[0];
        if (!owner) throw new Error(`no user ${actor.userId}`);
        const held = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM passkeys WHERE user_id = $1', [actor.userId]);
        if ((held.rows[0]?.n ?? 0) >= max) return { outcome: 'limit_reached' };
        const inserted = await c.query<PasskeyRow>(
          `INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, transports, name)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
          [randomUUID(), actor.userId, passkey.credentialId, Buffer.from(passkey.publicKey), passkey.counter, passkey.transports, passkey.name],
        );
        const stored = toPasskey(inserted.rows[0] as PasskeyRow);
        await this.changed(c, actor, 'added', stored.id, owner);
        return { outcome: 'added', passkey: stored };
      });
    } catch (e) {
      if ((e as { code?: string }).code === '23505') return { outcome: 'already_registered' };
      throw e;
    }
  }

  /** Renames one of the user's passkeys; null when the user has no passkey of that id. */
  async rename(userId: string, id: string, name: string): Promise<Passkey | null> {
    const rows = await this.db.query<PasskeyRow>(`UPDATE passkeys SET name = $3 WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`, [
      id,
      userId,
      name,
    ]);
    return rows[0] ? toPasskey(rows[0]) : null;
  }

  /** Removes one of the user's passkeys; false when the user has no passkey of that id. */
  async remove(actor: PasskeyActor, id: string): Promise<boolean> {
    return this.db.transaction(async (c) => {
      const deleted = await c.query<{ email: string; language: UserLanguage }>(
        `DELETE FROM passkeys p USING users u WHERE p.id = $1 AND p.user_id = $2 AND u.id = p.user_id RETURNING u.email, u.language`,
        [id, actor.userId],
      );
      const owner = deleted.rows[0];
      if (!owner) return false;
      // Recovery codes back up a second factor: with the last one gone, so are they (as when TOTP is turned off).
      const left = await c.query<{ any: boolean }>(`SELECT ${HAS_SECOND_FACTOR('$1::uuid')} AS any`, [actor.userId]);
      if (!left.rows[0]?.any) await c.query('DELETE FROM user_recovery_codes WHERE user_id = $1', [actor.userId]);
      await this.changed(c, actor, 'removed', id, owner);
      return true;
    });
  }

  /**
   * Records a use: the counter moves to `counter` and `last_used_at` to now, only if the counter moves forward (or
   * the authenticator keeps none: both 0). Of two assertions racing with one counter value only one passes; false
   * for the other, as for a cloned authenticator.
   */
  async recordUse(id: string, counter: number): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE passkeys SET counter = $2, last_used_at = now() WHERE id = $1 AND (counter < $2 OR (counter = 0 AND $2 = 0)) RETURNING id`,
      [id, counter],
    );
    return rows.length > 0;
  }

  private async changed(
    c: Tx,
    actor: PasskeyActor,
    change: 'added' | 'removed',
    passkeyId: string,
    owner: { email: string; language: UserLanguage },
  ): Promise<void> {
    await appendAuditEvent(c, {
      merchantId: actor.merchantId,
      type: change === 'added' ? 'account.passkey_added' : 'account.passkey_removed',
      ip: actor.ip,
      subject: passkeyId,
      userId: actor.userId,
    });
    await this.enqueueMail(c, {
      to: owner.email,
      template: change === 'added' ? 'second_factor_added' : 'second_factor_removed',
      language: owner.language,
      params: { factor: 'passkey' },
    });
  }
}
