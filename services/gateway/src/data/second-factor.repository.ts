import type { Db } from '@pl/db';
import type { SecretBox } from '@pl/config';
import { RECOVERY_CODES_PER_SET, type UserLanguage } from '@pl/contracts';
import { Secret } from 'otpauth';
import { appendAuditEvent } from './audit-log.repository';
import { HAS_SECOND_FACTOR } from './has-second-factor';
import type { Tx } from './account.repository';
import type { EnqueueMail } from './user.repository';
import { sha256 } from '../domain/credentials';
import type { MailLinks } from '../domain/mail';
import type { TotpUse } from '../domain/second-factor';
import { newTotpSecret, totpStepOf } from '../domain/totp';

/** Who did a change, for its audit event: the session's user, in the session's account, from an address. */
export interface FactorActor {
  userId: string;
  merchantId: string;
  ip: string | null;
}

/**
 * A reused TOTP code mails its holder at most once in this long: replaying codes (each refused) cannot fill their
 * mailbox, and one mail an hour still tells of an attempt that goes on.
 */
const REUSE_MAIL_EVERY_SECONDS = 3600;

/** A recovery code: 80 random bits as 16 base32 characters, in groups of four. */
const newRecoveryCode = (): string => new Secret({ size: 10 }).base32.toLowerCase().replace(/(.{4})(?=.)/g, '$1-');

/**
 * What is stored of a recovery code: SHA-256 of the code as typed (case, spaces and dashes forgiven), salted with the
 * user's random id, so one precomputed table serves no two users (ASVS 2.6.2 asks a salt below 112 bits of entropy).
 */
const recoveryCodeHash = (userId: string, code: string): Buffer => sha256(`${userId}:${code.toLowerCase().replace(/[^a-z0-9]/g, '')}`);

/**
 * Users' second factors: the TOTP secret (sealed with TWO_FACTOR_SECRET_KEY), the recovery codes (SHA-256 only) and
 * the accounts' policy. Every change goes with its audit event and its mail in one transaction.
 */
export class SecondFactorRepository {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly enqueueMail: EnqueueMail,
    private readonly links: Pick<MailLinks, 'security'>,
  ) {}

  /** A new TOTP secret waiting for its first code (replacing one that waited); null while TOTP is on. */
  async startTotp(userId: string): Promise<string | null> {
    const secret = newTotpSecret();
    const rows = await this.db.query(
      `INSERT INTO user_totp (user_id, secret_box) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET secret_box = EXCLUDED.secret_box, created_at = now(), last_used_step = NULL
        WHERE user_totp.confirmed_at IS NULL
       RETURNING user_id`,
      [userId, this.box.seal(secret)],
    );
    return rows.length > 0 ? secret : null;
  }

  /**
   * Turns TOTP on when `code` is right for the waiting secret, and hands out a first set of recovery codes; the
   * code's step counts as used.
   */
  async confirmTotp(actor: FactorActor, code: string, now: Date): Promise<'not_enabled' | 'already_enabled' | 'invalid_code' | string[]> {
    return this.db.transaction(async (c) => {
      const rows = await c.query<{ secret_box: Buffer; confirmed_at: Date | null }>(
        'SELECT secret_box, confirmed_at FROM user_totp WHERE user_id = $1 FOR UPDATE',
        [actor.userId],
      );
      const row = rows.rows[0];
      if (!row) return 'not_enabled';
      if (row.confirmed_at) return 'already_enabled';
      const step = totpStepOf(this.box.open(row.secret_box), code, now);
      if (step === null) return 'invalid_code';
      await c.query('UPDATE user_totp SET confirmed_at = now(), last_used_step = $2 WHERE user_id = $1', [actor.userId, step]);
      const codes = await replaceRecoveryCodes(c, actor.userId);
      await appendAuditEvent(c, { merchantId: actor.merchantId, type: 'two_factor.totp_enabled', ip: actor.ip, subject: null, userId: actor.userId });
      await this.mailUser(c, actor.userId, 'second_factor_added');
      return codes;
    });
  }

  /** Turns TOTP off; with it go the recovery codes when no other factor is left. False: TOTP was not on. */
  async disableTotp(actor: FactorActor): Promise<boolean> {
    return this.db.transaction(async (c) => {
      const deleted = await c.query('DELETE FROM user_totp WHERE user_id = $1 AND confirmed_at IS NOT NULL RETURNING user_id', [actor.userId]);
      if (deleted.rowCount === 0) return false;
      const left = await c.query<{ any: boolean }>(`SELECT ${HAS_SECOND_FACTOR('$1::uuid')} AS any`, [actor.userId]);
      if (!left.rows[0]?.any) await c.query('DELETE FROM user_recovery_codes WHERE user_id = $1', [actor.userId]);
      await appendAuditEvent(c, {
        merchantId: actor.merchantId,
        type: 'two_factor.totp_disabled',
        ip: actor.ip,
        subject: null,
        userId: actor.userId,
      });
      await this.mailUser(c, actor.userId, 'second_factor_removed');
      return true;
    });
  }

  /** A new set of recovery codes, the old ones void; null when the user has no second factor to back up. */
  async regenerateRecoveryCodes(actor: FactorActor): Promise<string[] | null> {
    return this.db.transaction(async (c) => {
      // The user's row is locked so two regenerations do not interleave their sets.
      const on = await c.query<{ any: boolean }>(`SELECT ${HAS_SECOND_FACTOR('u.id')} AS any FROM users u WHERE u.id = $1 FOR UPDATE`, [
        actor.userId,
      ]);
      if (!on.rows[0]?.any) return null;
      const codes = await replaceRecoveryCodes(c, actor.userId);
      const type = 'two_factor.recovery_codes_regenerated';
      await appendAuditEvent(c, { merchantId: actor.merchantId, type, ip: actor.ip, subject: null, userId: actor.userId });
      return codes;
    });
  }

  async totpEnabled(userId: string): Promise<boolean> {
    const rows = await this.db.query('SELECT 1 FROM user_totp WHERE user_id = $1 AND confirmed_at IS NOT NULL', [userId]);
    return rows.length > 0;
  }

  async recoveryCodesLeft(userId: string): Promise<number> {
    const rows = await this.db.query<{ n: number }>('SELECT count(*)::int AS n FROM user_recovery_codes WHERE user_id = $1 AND used_at IS NULL', [
      userId,
    ]);
    return rows[0]?.n ?? 0;
  }

  /**
   * Takes a TOTP code: `accepted` when it is right for a step newer than the last one used, which it then marks used,
   * in one conditional update (of two requests with one code, one wins); `reused` when it is right but of a step
   * already used (or older); `wrong` otherwise. A reuse queues the holder's `second_factor_code_reused` mail (ASVS 2.8.5),
   * at most one an hour (docs/adr/0028, "A reused code is mailed"); a taken code costs the one update, as before.
   */
  async useTotp(userId: string, code: string, now: Date): Promise<TotpUse> {
    const rows = await this.db.query<{ secret_box: Buffer }>('SELECT secret_box FROM user_totp WHERE user_id = $1 AND confirmed_at IS NOT NULL', [
      userId,
    ]);
    const row = rows[0];
    if (!row) return { outcome: 'wrong' };
    const step = totpStepOf(this.box.open(row.secret_box), code, now);
    if (step === null) return { outcome: 'wrong' };
    const taken = await this.db.query(
      `UPDATE user_totp SET last_used_step = $2
        WHERE user_id = $1 AND confirmed_at IS NOT NULL AND (last_used_step IS NULL OR last_used_step < $2) RETURNING user_id`,
      [userId, step],
    );
    if (taken.length > 0) return { outcome: 'accepted' };
    // The finding changed nothing; the notice's hour and its mail are what must commit together.
    return { outcome: 'reused', mailed: await this.db.transaction((c) => this.mailReuseHourly(c, userId)) };
  }

  /**
   * Queues the reuse notice unless the user had one within the hour: `reuse_mailed_at` is moved by a conditional
   * update, so of replays racing, the first takes the row's lock and the rest, re-checking after its commit, find
   * the hour spent. True when the mail was queued.
   */
  private async mailReuseHourly(c: Tx, userId: string): Promise<boolean> {
    const due = await c.query<{ email: string; language: UserLanguage }>(
      `UPDATE user_totp t SET reuse_mailed_at = now() FROM users u
        WHERE t.user_id = $1 AND u.id = t.user_id AND t.confirmed_at IS NOT NULL
          AND (t.reuse_mailed_at IS NULL OR t.reuse_mailed_at <= now() - make_interval(secs => $2))
        RETURNING u.email, u.language`,
      [userId, REUSE_MAIL_EVERY_SECONDS],
    );
    const user = due.rows[0];
    if (!user) return false;
    await this.enqueueMail(c, {
      to: user.email,
      template: 'second_factor_code_reused',
      language: user.language,
      params: { link: this.links.security() },
    });
    return true;
  }

  /** Takes a recovery code once: true when it was one of the user's unused codes (found by its hash). */
  async useRecoveryCode(userId: string, code: string): Promise<boolean> {
    const rows = await this.db.query(
      'UPDATE user_recovery_codes SET used_at = now() WHERE user_id = $1 AND code_sha256 = $2 AND used_at IS NULL RETURNING user_id',
      [userId, recoveryCodeHash(userId, code)],
    );
    return rows.length > 0;
  }

  /** The account's settings; null when it does not exist. */
  async accountSettings(merchantId: string): Promise<{ merchantId: string; name: string; requireTwoFactor: boolean } | null> {
    const rows = await this.db.query<{ id: string; name: string; require_two_factor: boolean }>(
      'SELECT id, name, require_two_factor FROM merchants WHERE id = $1',
      [merchantId],
    );
    const row = rows[0];
    return row ? { merchantId: row.id, name: row.name, requireTwoFactor: row.require_two_factor } : null;
  }

  /** Sets whether every member needs a second factor; audited when it changes. */
  async setRequireTwoFactor(actor: FactorActor, required: boolean): Promise<void> {
    await this.db.transaction(async (c) => {
      const changed = await c.query('UPDATE merchants SET require_two_factor = $2 WHERE id = $1 AND require_two_factor <> $2 RETURNING id', [
        actor.merchantId,
        required,
      ]);
      if (changed.rowCount === 0) return;
      const type = 'account.two_factor_policy_changed';
      await appendAuditEvent(c, {
        merchantId: actor.merchantId,
        type,
        ip: actor.ip,
        subject: required ? 'required' : 'optional',
        userId: actor.userId,
      });
    });
  }

  private async mailUser(c: Tx, userId: string, template: 'second_factor_added' | 'second_factor_removed'): Promise<void> {
    const rows = await c.query<{ email: string; language: UserLanguage }>('SELECT email, language FROM users WHERE id = $1', [userId]);
    const user = rows.rows[0];
    if (user) await this.enqueueMail(c, { to: user.email, template, language: user.language, params: { factor: 'totp' } });
  }
}

/** Voids every recovery code of the user and stores a new set (hashes only); answers the codes, shown once. */
async function replaceRecoveryCodes(c: Tx, userId: string): Promise<string[]> {
  await c.query('DELETE FROM user_recovery_codes WHERE user_id = $1', [userId]);
  const codes = Array.from({ length: RECOVERY_CODES_PER_SET }, newRecoveryCode);
  await c.query('INSERT INTO user_recovery_codes (user_id, code_sha256) SELECT $1, unnest($2::bytea[])', [
    userId,
    codes.map((code) => recoveryCodeHash(userId, code)),
  ]);
  return codes;
}
