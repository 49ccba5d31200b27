import { randomBytes, randomUUID } from 'node:crypto';
import type { AccountRole, UserLanguage } from '@pl/contracts';
import type { Db } from '@pl/db';
import { appendAuditEvent } from './audit-log.repository';
import { insertUser } from './account.repository';
import type { EnqueueMail } from './user.repository';
import type { MailLinks } from '../domain/mail';
import type { MembershipDecision } from '../domain/team';
import { sha256 } from '../domain/credentials';
import type { PasswordHasher } from '../domain/password-hash';

export interface Member {
  userId: string;
  email: string;
  role: AccountRole;
  joinedAt: Date;
}

export interface Invitation {
  id: string;
  merchantId: string;
  email: string;
  role: AccountRole;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
}

interface InvitationRow {
  id: string;
  merchant_id: string;
  email: string;
  role: AccountRole;
  invited_by: string;
  created_at: Date;
  expires_at: Date;
}

/** An invitation's link works this long, once. */
const INVITATION_LIFETIME_HOURS = 72;

const INVITATION_COLUMNS = 'id, merchant_id, email, role, invited_by, created_at, expires_at';
const PENDING = 'accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()';

const toInvitation = (r: InvitationRow): Invitation => ({
  id: r.id,
  merchantId: r.merchant_id,
  email: r.email,
  role: r.role,
  invitedBy: r.invited_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

/** Who acts on the team: the session's user and where from, for the audit log. */
export interface TeamActor {
  userId: string;
  ip: string | null;
}

/**
 * The members of an account and the invitations to it. A change of role or a removal locks the account's
 * memberships first, so two owners demoting each other at once cannot leave the account without one.
 */
export class TeamRepository {
  constructor(
    private readonly db: Db,
    private readonly enqueueMail: EnqueueMail,
    private readonly links: MailLinks,
    private readonly passwords: PasswordHasher,
  ) {}

  async members(merchantId: string): Promise<Member[]> {
    const rows = await this.db.query<{ user_id: string; email: string; role: AccountRole; created_at: Date }>(
      `SELECT ms.user_id, u.email, ms.role, ms.created_at FROM memberships ms JOIN users u ON u.id = ms.user_id
        WHERE ms.merchant_id = $1 ORDER BY ms.created_at, ms.user_id`,
      [merchantId],
    );
    return rows.map((r) => ({ userId: r.user_id, email: r.email, role: r.role, joinedAt: r.created_at }));
  }

  /**
   * Changes a member's role (`role`) or removes them (`null`) when `decide` allows it on the locked memberships:
   * the target's role and how many owners the account has.
   */
  async changeMembership(
    merchantId: string,
    actor: TeamActor,
    targetUserId: string,
    role: AccountRole | null,
    decide: (target: AccountRole, owners: number) => MembershipDecision,
  ): Promise<MembershipDecision> {
    return this.db.transaction(async (c) => {
      const locked = await c.query<{ user_id: string; role: AccountRole }>(
        'SELECT user_id, role FROM memberships WHERE merchant_id = $1 ORDER BY user_id FOR UPDATE',
        [merchantId],
      );
      const target = locked.rows.find((r) => r.user_id === targetUserId);
      if (!target) return 'not_found';
      const decision = decide(target.role, locked.rows.filter((r) => r.role === 'owner').length);
      if (decision !== 'ok') return decision;
      if (role === null) {
        await c.query('DELETE FROM memberships WHERE merchant_id = $1 AND user_id = $2', [merchantId, targetUserId]);
        await appendAuditEvent(c, { merchantId, type: 'member.removed', ip: actor.ip, subject: targetUserId, userId: actor.userId });
      } else {
        await c.query('UPDATE memberships SET role = $3 WHERE merchant_id = $1 AND user_id = $2', [merchantId, targetUserId, role]);
        await appendAuditEvent(c, {
          merchantId,
          type: 'member.role_changed',
          ip: actor.ip,
          subject: `${targetUserId}: ${target.role} -> ${role}`,
          userId: actor.userId,
        });
      }
      return 'ok';
    });
  }

  /** A new invitation and its mail (a 72-hour single-use link), in the invitee's language when they are a user already. */
  async invite(merchantId: string, actor: TeamActor, email: string, role: AccountRole): Promise<Invitation> {
    const token = randomBytes(32).toString('base64url');
    return this.db.transaction(async (c) => {
      const rows = await c.query<InvitationRow>(
        `INSERT INTO invitations (id, merchant_id, email, role, token_sha256, invited_by, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(hours => $7)) RETURNING ${INVITATION_COLUMNS}`,
        [randomUUID(), merchantId, email, role, sha256(token), actor.userId, INVITATION_LIFETIME_HOURS],
      );
      const invitation = toInvitation(rows.rows[0] as InvitationRow);
      const context = await c.query<{
        account_name: string;
        inviter_email: string;
        inviter_language: UserLanguage;
        invitee_language: UserLanguage | null;
      }>(
        `SELECT m.name AS account_name, i.email AS inviter_email, i.language AS inviter_language,
                (SELECT u.language FROM users u WHERE lower(u.email) = lower($3)) AS invitee_language
           FROM merchants m, users i WHERE m.id = $1 AND i.id = $2`,
        [merchantId, actor.userId, email],
      );
      const ctx = context.rows[0];
      if (!ctx) throw new Error('the inviting user or the account is missing');
      await appendAuditEvent(c, { merchantId, type: 'member.invited', ip: actor.ip, subject: `${invitation.id}: ${role}`, userId: actor.userId });
      await this.enqueueMail(c, {
        to: email,
        template: 'invitation',
        language: ctx.invitee_language ?? ctx.inviter_language,
        params: { link: this.links.invitation(token), account_name: ctx.account_name, role, inviter_email: ctx.inviter_email },
      });
      return invitation;
    });
  }

  /** The account's invitations still waiting for an answer, newest first. */
  async pendingInvitations(merchantId: string): Promise<Invitation[]> {
    const rows = await this.db.query<InvitationRow>(
      `SELECT ${INVITATION_COLUMNS} FROM invitations WHERE merchant_id = $1 AND ${PENDING} ORDER BY created_at DESC, id`,
      [merchantId],
    );
    return rows.map(toInvitation);
  }

  async findInvitation(id: string): Promise<(Invitation & { pending: boolean }) | null> {
    const rows = await this.db.query<InvitationRow & { pending: boolean }>(
      `SELECT ${INVITATION_COLUMNS}, (${PENDING}) AS pending FROM invitations WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    return row ? { ...toInvitation(row), pending: row.pending } : null;
  }

  /** Voids a pending invitation; false when it was no longer pending. */
  async revokeInvitation(id: string): Promise<boolean> {
    const rows = await this.db.query(`UPDATE invitations SET revoked_at = now() WHERE id = $1 AND ${PENDING} RETURNING id`, [id]);
    return rows.length > 0;
  }

  /**
   * Spends an invitation token and makes its email's user a member with the invited role. `joiner` says who
   * accepts: the signed-in user (whose email must be the invited one), or whoever knows a password: the existing
   * user's (checked) or a new user's (the link proved the mailbox, so the email is confirmed). Answers the user
   * and the account, or why not; nothing changes unless it succeeds.
   */
  async accept(
    token: string,
    joiner: { userId: string } | { password: string | undefined },
    ip: string | null,
  ): Promise<
    | { outcome: 'joined'; userId: string; merchantId: string; sessionEpoch: number }
    | { outcome: 'invalid_token' | 'wrong_user' | 'password_needed' | 'wrong_password' }
  > {
    const newHash = 'password' in joiner && joiner.password !== undefined ? await this.passwords.hash(joiner.password) : null;
    return this.db.transaction(async (c) => {
      const found = await c.query<InvitationRow>(`SELECT ${INVITATION_COLUMNS} FROM invitations WHERE token_sha256 = $1 AND ${PENDING} FOR UPDATE`, [
        sha256(token),
      ]);
      const invitation = found.rows[0] ? toInvitation(found.rows[0]) : null;
      if (!invitation) return { outcome: 'invalid_token' };
      const users = await c.query<{ id: string; password_hash: string; session_epoch: number }>(
        'SELECT id, password_hash, session_epoch FROM users WHERE lower(email) = lower($1)',
        [invitation.email],
      );
      const existing = users.rows[0];
      let user: { id: string; sessionEpoch: number };
      if ('userId' in joiner) {
        if (existing?.id !== joiner.userId) return { outcome: 'wrong_user' };
        user = { id: existing.id, sessionEpoch: existing.session_epoch };
      } else if (joiner.password === undefined) {
        return { outcome: 'password_needed' };
      } else if (existing) {
        if (!(await this.passwords.verify(joiner.password, existing.password_hash)).ok) return { outcome: 'wrong_password' };
        user = { id: existing.id, sessionEpoch: existing.session_epoch };
      } else {
        const id = await insertUser(c, {
          email: invitation.email,
          passwordHash: newHash ?? this.passwords.dummyHash,
          emailConfirmed: true,
          language: 'ru',
        });
        user = { id, sessionEpoch: 0 };
      }
      await c.query('UPDATE invitations SET accepted_at = now() WHERE id = $1', [invitation.id]);
      // A member already keeps the role they have: an invitation never demotes (nor promotes) anyone.
      await c.query('INSERT INTO memberships (user_id, merchant_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        user.id,
        invitation.merchantId,
        invitation.role,
      ]);
      await appendAuditEvent(c, {
        merchantId: invitation.merchantId,
        type: 'member.joined',
        ip,
        subject: `${invitation.id}: ${invitation.role}`,
        userId: user.id,
      });
      return { outcome: 'joined', userId: user.id, merchantId: invitation.merchantId, sessionEpoch: user.sessionEpoch };
    });
  }
}
