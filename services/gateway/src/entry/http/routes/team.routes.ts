import { Router, type Request, type Response } from 'express';
import {
  acceptInvitationBody,
  createInvitationBody,
  formatMoscow,
  updateMemberBody,
  uuid,
  type AccountRole,
  type InvitationView,
  type MemberView,
} from '@pl/contracts';
import { forbidden, invalidToken, lastOwner, notFound, unauthorized } from '@pl/errors';
import type { Invitation, Member } from '../../../data/team.repository';
import { mayManageRole } from '../../../domain/roles';
import { decideMembershipChange } from '../../../domain/team';
import { secondStepOf } from '../../../domain/second-factor-sign-in';
import type { HttpDeps } from '../deps';
import { identityOf, memberOf } from '../context';
import { authenticateSession, authenticateSessionToken, sessionTokenFrom } from '../middlewares/authenticate-session';
import { allow } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';
import { setSessionCookie } from './session-cookie';

const memberView = (m: Member): MemberView => ({ user_id: m.userId, email: m.email, role: m.role, joined_at: formatMoscow(m.joinedAt) });
const invitationView = (i: Invitation): InvitationView => ({
  id: i.id,
  email: i.email,
  role: i.role,
  invited_by: i.invitedBy,
  created_at: formatMoscow(i.createdAt),
  expires_at: formatMoscow(i.expiresAt),
});

/** A path's id; one that is not a UUID names nothing (404). */
const pathUuid = (req: Request, name: string, what: string): string => {
  const id = req.params[name];
  if (typeof id !== 'string' || !uuid.safeParse(id).success) throw notFound(`${what} not found`);
  return id;
};

/**
 * `/api/v1/members` and `/api/v1/invitations`: the team of the session's account. Owners and admins manage it
 * (an admin never an owner's membership, nor makes an owner); an account always keeps an owner (409
 * `account.err.last_owner`). A removed member's sessions in the account end at once, on every replica: a session's
 * membership is read on every request.
 */
export function teamRoutes(deps: HttpDeps): Router {
  const session = [authenticateSession(deps), limitByCredential(deps.rateLimits)];
  const router = Router();
  const memberExists = async (req: Request, res: Response): Promise<void> => {
    const id = pathUuid(req, 'user_id', 'Member');
    if (!(await deps.team.members(identityOf(res).merchant_id)).some((m) => m.userId === id)) throw notFound('Member not found');
  };
  const invitationExists = async (req: Request, res: Response): Promise<Invitation> => {
    const found = await deps.team.findInvitation(pathUuid(req, 'id', 'Invitation'));
    if (!found?.pending) throw notFound('Invitation not found');
    if (found.merchantId !== identityOf(res).merchant_id) throw forbidden('This invitation is for another account');
    return found;
  };
  /** Changes (role) or removes (null) a member, by the rules of `decideMembershipChange`. */
  const changeMembership = async (req: Request, res: Response, next: AccountRole | null): Promise<void> => {
    const target = pathUuid(req, 'user_id', 'Member');
    const actor = memberOf(res);
    const decision = await deps.team.changeMembership(
      identityOf(res).merchant_id,
      { userId: actor.userId, ip: req.ip ?? null },
      target,
      next,
      (role, owners) => decideMembershipChange(actor.role, role, next, owners),
    );
    if (decision === 'not_found') throw notFound('Member not found');
    if (decision === 'forbidden') throw forbidden(`The ${actor.role} role may not manage this membership`);
    if (decision === 'last_owner') throw lastOwner();
  };

  router
    .route('/members')
    .get(
      chain(...session, allow('manage_members'), async (_req, res) => {
        res.json({ members: (await deps.team.members(identityOf(res).merchant_id)).map(memberView) });
      }),
    )
    .all(wrongMethod(['GET']));
  router
    .route('/members/:user_id')
    .patch(
      chain(
        ...session,
        allow('manage_members', memberExists),
        route({
          body: updateMemberBody,
          handle: async ({ req, res, body }) => {
            await changeMembership(req, res, body.role);
            const member = (await deps.team.members(identityOf(res).merchant_id)).find((m) => m.userId === req.params.user_id);
            if (!member) throw notFound('Member not found');
            res.json(memberView(member));
          },
        }),
      ),
    )
    .delete(
      chain(...session, allow('manage_members', memberExists), async (req, res) => {
        await changeMembership(req, res, null);
        res.status(204).end();
      }),
    )
    .all(wrongMethod(['PATCH', 'DELETE']));
  router
    .route('/invitations')
    .get(
      chain(...session, allow('manage_members'), async (_req, res) => {
        res.json({ invitations: (await deps.team.pendingInvitations(identityOf(res).merchant_id)).map(invitationView) });
      }),
    )
    .post(
      chain(
        ...session,
        allow('manage_members'),
        route({
          body: createInvitationBody,
          handle: async ({ req, res, body }) => {
            const actor = memberOf(res);
            if (!mayManageRole(actor.role, body.role)) throw forbidden(`The ${actor.role} role may not invite an ${body.role}`);
            const invitation = await deps.team.invite(
              identityOf(res).merchant_id,
              { userId: actor.userId, ip: req.ip ?? null },
              body.email,
              body.role,
            );
            res.status(201).json(invitationView(invitation));
          },
        }),
      ),
    )
    .all(wrongMethod(['GET', 'POST']));
  router
    .route('/invitations/accept')
    .post(
      route({
        body: acceptInvitationBody,
        handle: async ({ req, res, body }) => {
          // Signed in: the session's user joins (it must be the invited email's). Otherwise the password signs in the
          // invited email's user, or signs it up.
          const token = sessionTokenFrom(req);
          if (token !== null) await authenticateSessionToken(deps, token, res);
          const joiner = token !== null ? { userId: memberOf(res).userId } : { password: body.password };
          if (!('userId' in joiner) && body.password !== undefined) deps.assertUncommonPassword(body.password, 'password');
          const accepted = await deps.team.accept(body.token, joiner, req.ip ?? null);
          if (accepted.outcome === 'invalid_token') throw invalidToken();
          if (accepted.outcome === 'wrong_user') throw forbidden('The invitation is for another email');
          if (accepted.outcome === 'password_needed') throw unauthorized('Sign in, or give a password to sign up the invited email');
          if (accepted.outcome !== 'joined') throw unauthorized('Invalid email or password');
          let sessionToken: string;
          let expiresAt: Date;
          if (token !== null) {
            await deps.sessions.switchAccount(token, accepted.merchantId);
            const current = await deps.sessions.find(token);
            if (!current) throw unauthorized('Missing, invalid or expired session');
            sessionToken = token;
            expiresAt = current.expiresAt;
          } else {
            // A password alone is never a sign-in for a user with a second factor: they get sign-in's second step,
            // in the account they joined.
            const pending = { userId: accepted.userId, merchantId: accepted.merchantId, epoch: accepted.sessionEpoch };
            const second = await secondStepOf({ factors: deps.factors, challenges: deps.loginChallenges }, pending);
            if (second) {
              res.set('Cache-Control', 'no-store').json({ two_factor_required: true, ...second });
              return;
            }
            const opened = await deps.sessions.create(accepted.userId, accepted.merchantId, accepted.sessionEpoch);
            sessionToken = opened.token;
            expiresAt = opened.session.expiresAt;
            setSessionCookie(res, sessionToken, expiresAt, deps.secureCookies);
          }
          res.json({ session_token: sessionToken, expires_at: formatMoscow(expiresAt) });
        },
      }),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/invitations/:id')
    .delete(
      chain(...session, allow('manage_members', invitationExists), async (req, res) => {
        const invitation = await invitationExists(req, res);
        if (!mayManageRole(memberOf(res).role, invitation.role)) throw forbidden('An admin may not withdraw an invitation of an owner');
        if (!(await deps.team.revokeInvitation(invitation.id))) throw notFound('Invitation not found');
        res.status(204).end();
      }),
    )
    .all(wrongMethod(['DELETE']));
  return router;
}
