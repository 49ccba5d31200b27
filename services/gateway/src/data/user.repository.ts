import { randomBytes } from 'node:crypto';
import type { AccountRole, UserLanguage } from '@pl/contracts';
import type { Db } from '@pl/db';
import { appendAuditEvent } from './audit-log.repository';
import { insertAccount, insertUser, type Tx } from './account.repository';
import type { MailLinks, OutgoingMail } from '../domain/mail';
import { sha256 } from '../domain/credentials';
import type { PasswordHasher } from '../domain/password-hash';
import { HAS_SECOND_FACTOR } from './has-second-factor';

/** Writes one mail to the durable queue in the caller's transaction (`@pl/mail`'s `enqueueMail`). */
export type EnqueueMail = (tx: Tx, mail: OutgoingMail) => Promise<unknown>;

export interface User {
  id: string;
  email: string;
  emailConfirmed: boolean;
  language: UserLanguage;
  /** Sessions opened in another epoch are over (a password change or reset moves it on). */
  sessionEpoch: number;
}

/**
 * A session's user as read on every request, with their role in the session's account (null: not a member), whether
 * they have a second factor, and whether the account requires one of every member.
 */
export type SessionUser = User & { role: AccountRole | null; hasSecondFactor: boolean; accountRequiresTwoFactor: boolean };

export interface Membership {
  merchantId: string;
  name: string;
  role: AccountRole;
  createdAt: Date;
}

interface UserRow {
  id: string;
  email: string;
  email_confirmed: boolean;
  language: UserLanguage;
  session_epoch: number;
}

type TokenPurpose = 'confirm_email' | 'password_reset';

/** How long a mailed token works. */
const TOKEN_LIFETIME_HOURS: Record<TokenPurpose, number> = { confirm_email: 24, password_reset: 1 };

const USER_COLUMNS = 'u.id, u.email, u.email_confirmed, u.language, u.session_epoch';

const toUser = (r: UserRow): User => ({
  id: r.id,
  email: r.email,
  emailConfirmed: r.email_confirmed,
  language: r.language,
  sessionEpoch: r.session_epoch,
});

/** A mailed token: 256 random bits; only its SHA-256 is stored. */
const newMailedToken = (): string => randomBytes(32).toString('base64url');

/**
 * Users, their memberships and the single-use tokens mailed to them. Every mail is queued in the transaction of
 * the change it tells of, so none goes out for a change that rolled back and none is lost with a process.
 */
export class UserRepository {
  constructor(
    private readonly db: Db,
    private readonly enqueueMail: EnqueueMail,
    private readonly links: MailLinks,
    private readonly passwords: PasswordHasher,
    /** Told when a sign-in's re-hash could not be stored (the sign-in goes on with the old hash). */
    private readonly onRehashFailed: (err: unknown, userId: string) => void = () => undefined,
  ) {}

  /**
   * The user for an email and password, or null; an unknown email takes as long as a wrong password (at today's
   * parameters). A right password whose hash is weaker than today's parameters is hashed anew and stored, only if
   * the hash is still the one checked (a password changed meanwhile wins); a failure there never fails the sign-in.
   */
  async findByLogin(email: string, password: string): Promise<User | null> {
    const rows = await this.db.query<UserRow & { password_hash: string }>(
      `SELECT ${USER_COLUMNS}, u.password_hash FROM users u WHERE lower(u.email) = lower($1)`,
      [email],
    );
    const row = rows[0];
    const { ok, rehash } = await this.passwords.verify(password, row?.password_hash ?? this.passwords.dummyHash);
    if (!row || !ok) return null;
    if (rehash) await this.rehash(row.id, row.password_hash, password);
    return toUser(row);
  }

  private async rehash(userId: string, checked: string, password: string): Promise<void> {
    try {
      const next = await this.passwords.hash(password);
      // One statement, so no transaction: it changes nothing else, and the session epoch stays (it is the same password).
      await this.db.query('UPDATE users SET password_hash = $3 WHERE id = $1 AND password_hash = $2', [userId, checked, next]);
    } catch (err) {
      this.onRehashFailed(err, userId);
    }
  }

  async findById(id: string): Promise<User | null> {
    const rows = await this.db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = $1`, [id]);
    return rows[0] ? toUser(rows[0]) : null;
  }

  /**
   * The user of a session and their role in its account, read on every session request: a password change, a
   * reset or a removal from the account bites at once, on every replica.
   */
  async sessionUser(userId: string, merchantId: string): Promise<SessionUser | null> {
    const rows = await this.db.query<UserRow & { role: AccountRole | null; has_second_factor: boolean; require_two_factor: boolean | null }>(
      `SELECT ${USER_COLUMNS}, ms.role, ${HAS_SECOND_FACTOR('u.id')} AS has_second_factor, m.require_two_factor FROM users u
         LEFT JOIN memberships ms ON ms.user_id = u.id AND ms.merchant_id = $2
         LEFT JOIN merchants m ON m.id = ms.merchant_id
        WHERE u.id = $1`,
      [userId, merchantId],
    );
    const row = rows[0];
    return row
      ? { ...toUser(row), role: row.role, hasSecondFactor: row.has_second_factor, accountRequiresTwoFactor: row.require_two_factor === true }
      : null;
  }

  /** Every account the user is a member of, the oldest membership first (the one a sign-in opens). */
  async memberships(userId: string): Promise<Membership[]> {
    const rows = await this.db.query<{ merchant_id: string; name: string; role: AccountRole; created_at: Date }>(
      `SELECT ms.merchant_id, m.name, ms.role, ms.created_at FROM memberships ms JOIN merchants m ON m.id = ms.merchant_id
        WHERE ms.user_id = $1 ORDER BY ms.created_at, ms.merchant_id`,
      [userId],
    );
    return rows.map((r) => ({ merchantId: r.merchant_id, name: r.name, role: r.role, createdAt: r.created_at }));
  }

  /** Remembers an address a user signed in from; true when it is new for this user. */
  async rememberSignInAddress(userId: string, ip: string): Promise<boolean> {
    const rows = await this.db.query('INSERT INTO user_sign_in_addresses (user_id, ip) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING user_id', [
      userId,
      ip,
    ]);
    return rows.length > 0;
  }

  /**
   * Sets a new password when `current` is right and moves the session epoch on, so every session opened before
   * ends; answers the new epoch, or null for a wrong current password (nothing changes then). The update is
   * conditional on the hash it checked, so of two concurrent changes only one wins. The audit event (in the
   * session's account) and the mail go with the change.
   */
  async changePassword(
    userId: string,
    merchantId: string,
    current: string,
    next: string,
    ip: string | null,
  ): Promise<{ sessionEpoch: number } | null> {
    const rows = await this.db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [userId]);
    const checked = rows[0]?.password_hash;
    if (checked === undefined || !(await this.passwords.verify(current, checked)).ok) return null;
    const nextHash = await this.passwords.hash(next);
    return this.db.transaction(async (c) => {
      const updated = await c.query<UserRow>(
        `UPDATE users u SET password_hash = $3, session_epoch = session_epoch + 1
          WHERE id = $1 AND password_hash = $2 RETURNING ${USER_COLUMNS}`,
        [userId, checked, nextHash],
      );
      const row = updated.rows[0];
      if (!row) return null;
      await appendAuditEvent(c, { merchantId, type: 'account.password_changed', ip, subject: null, userId });
      await this.mail(c, toUser(row), 'password_changed', {});
      return { sessionEpoch: row.session_epoch };
    });
  }

  /**
   * Sign-up: a new unconfirmed user with a new account they own, and a mail with the confirmation link. A known
   * email changes nothing and gets a mail saying an account exists: the caller answers both alike. The password
   * is hashed either way, so both take as long.
   */
  async signUp(input: { email: string; password: string; accountName: string; language: UserLanguage }): Promise<void> {
    const passwordHash = await this.passwords.hash(input.password);
    try {
      await this.db.transaction(async (c) => {
        const known = await c.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE lower(u.email) = lower($1)`, [input.email]);
        const existing = known.rows[0];
        if (existing) {
          await this.mail(c, toUser(existing), 'signup_exists', { link: this.links.signIn() });
          return;
        }
        const userId = await insertUser(c, { email: input.email, passwordHash, emailConfirmed: false, language: input.language });
        await insertAccount(c, { email: input.email, name: input.accountName, ownerId: userId });
        const token = await insertToken(c, userId, 'confirm_email');
        await this.enqueueMail(c, {
          to: input.email,
          template: 'signup_confirm',
          language: input.language,
          params: { link: this.links.confirmEmail(token) },
        });
      });
    } catch (e) {
      // The same email signing up at the same moment: the other request made the user, this one is a known email.
      if ((e as { code?: string }).code !== '23505') throw e;
      await this.db.transaction(async (c) => {
        const known = await c.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE lower(u.email) = lower($1)`, [input.email]);
        if (known.rows[0]) await this.mail(c, toUser(known.rows[0]), 'signup_exists', { link: this.links.signIn() });
      });
    }
  }

  /** A fresh confirmation mail for a user whose email is not confirmed yet; nothing for a confirmed one. */
  async resendConfirmation(userId: string): Promise<void> {
    await this.db.transaction(async (c) => {
      const rows = await c.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = $1 FOR UPDATE`, [userId]);
      const user = rows.rows[0] ? toUser(rows.rows[0]) : null;
      if (!user || user.emailConfirmed) return;
      const token = await insertToken(c, userId, 'confirm_email');
      await this.mail(c, user, 'signup_confirm', { link: this.links.confirmEmail(token) });
    });
  }

  /** Confirms the email of a confirmation token's user; false for an unknown, used or expired token. */
  async confirmEmail(token: string): Promise<boolean> {
    return this.db.transaction(async (c) => {
      const userId = await useToken(c, token, 'confirm_email');
      if (userId === null) return false;
      await c.query('UPDATE users SET email_confirmed = true WHERE id = $1', [userId]);
      return true;
    });
  }

  /** A reset link mailed to a known email; an unknown one gets nothing (the caller answers both alike). */
  async requestPasswordReset(email: string): Promise<void> {
    await this.db.transaction(async (c) => {
      const rows = await c.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE lower(u.email) = lower($1)`, [email]);
      const user = rows.rows[0] ? toUser(rows.rows[0]) : null;
      if (!user) return;
      const token = await insertToken(c, user.id, 'password_reset');
      await this.mail(c, user, 'password_reset', { link: this.links.resetPassword(token) });
    });
  }

  /**
   * Sets the password of a reset token's user and ends every session of theirs (the epoch moves on); false for an
   * unknown, used or expired token. A reset proves the mailbox, so it confirms the email too.
   */
  async resetPassword(token: string, next: string, ip: string | null): Promise<boolean> {
    const nextHash = await this.passwords.hash(next);
    return this.db.transaction(async (c) => {
      const userId = await useToken(c, token, 'password_reset');
      if (userId === null) return false;
      const updated = await c.query<UserRow>(
        `UPDATE users u SET password_hash = $2, session_epoch = session_epoch + 1, email_confirmed = true
          WHERE id = $1 RETURNING ${USER_COLUMNS}`,
        [userId, nextHash],
      );
      const user = toUser(updated.rows[0] as UserRow);
      // Every other reset link of the user is void once one was used.
      await c.query(`UPDATE user_tokens SET used_at = now() WHERE user_id = $1 AND purpose = 'password_reset' AND used_at IS NULL`, [userId]);
      const accounts = await c.query<{ merchant_id: string }>('SELECT merchant_id FROM memberships WHERE user_id = $1', [userId]);
      for (const a of accounts.rows) {
        await appendAuditEvent(c, { merchantId: a.merchant_id, type: 'account.password_reset', ip, subject: null, userId });
      }
      await this.mail(c, user, 'password_changed', {});
      return true;
    });
  }

  private async mail(c: Tx, user: User, template: OutgoingMail['template'], params: Record<string, string>): Promise<void> {
    await this.enqueueMail(c, { to: user.email, template, language: user.language, params });
  }
}

async function insertToken(c: Tx, userId: string, purpose: TokenPurpose): Promise<string> {
  const token = newMailedToken();
  await c.query(`INSERT INTO user_tokens (token_sha256, user_id, purpose, expires_at) VALUES ($1, $2, $3, now() + make_interval(hours => $4))`, [
    sha256(token),
    userId,
    purpose,
    TOKEN_LIFETIME_HOURS[purpose],
  ]);
  return token;
}

/** Marks a token used, once: the user it was for, or null when it is unknown, used, expired or of another purpose. */
async function useToken(c: Tx, token: string, purpose: TokenPurpose): Promise<string | null> {
  const rows = await c.query<{ user_id: string }>(
    `UPDATE user_tokens SET used_at = now()
      WHERE token_sha256 = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
    [sha256(token), purpose],
  );
  return rows.rows[0]?.user_id ?? null;
}
