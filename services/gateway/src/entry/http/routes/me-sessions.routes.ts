import { Router, type Request, type Response } from 'express';
import { emptyBody, formatMoscow, uuid, type SessionView } from '@pl/contracts';
import { notFound, unauthorized } from '@pl/errors';
import type { ListedSession } from '../../../data/session.store';
import type { HttpDeps } from '../deps';
import { memberOf, sessionTokenOf } from '../context';
import { authenticateSession } from '../middlewares/authenticate-session';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';
import { setSessionCookie } from './session-cookie';

const view = (s: ListedSession, currentId: string | null): SessionView => ({
  id: s.id,
  ip: s.ip,
  user_agent: s.userAgent,
  created_at: formatMoscow(s.createdAt),
  last_seen_at: formatMoscow(s.lastSeenAt),
  current: s.id === currentId,
});

/**
 * `/api/v1/me/sessions`: the signed-in user's own dashboard sessions, in every account of theirs, listed and ended.
 * Any role: a member manages only their own sessions. A session ended by a password change or reset (another epoch)
 * or by a removal from its account is over already: it is not listed, and its record is dropped on the way.
 */
export function meSessionsRoutes(deps: HttpDeps): Router {
  const session = [authenticateSession(deps), limitByCredential(deps.rateLimits)];
  const router = Router();

  /** The user's sessions in force and the current one's id; the ones found over are ended. */
  const sessionsOf = async (res: Response): Promise<{ userId: string; live: ListedSession[]; currentId: string | null }> => {
    const { userId } = memberOf(res);
    const token = sessionTokenOf(res);
    const [listed, user, memberships, current] = await Promise.all([
      deps.sessions.listOf(userId),
      deps.users.findById(userId),
      deps.users.memberships(userId),
      token === undefined ? null : deps.sessions.find(token),
    ]);
    if (!user) throw unauthorized('Missing, invalid or expired session');
    const accounts = new Set(memberships.map((m) => m.merchantId));
    const inForce = (s: ListedSession): boolean => s.epoch === user.sessionEpoch && accounts.has(s.merchantId);
    const over = listed.filter((s) => !inForce(s)).map((s) => s.id);
    if (over.length > 0) await deps.sessions.end(userId, over);
    return { userId, live: listed.filter(inForce), currentId: current?.id ?? null };
  };

  router
    .route('/')
    .get(
      chain(...session, async (_req, res) => {
        const { live, currentId } = await sessionsOf(res);
        res.json({ sessions: live.map((s) => view(s, currentId)) });
      }),
    )
    .all(wrongMethod(['GET']));
  router
    .route('/revoke-others')
    .post(
      chain(
        ...session,
        route({
          body: emptyBody,
          emptyBodyAs: {},
          handle: async ({ res }) => {
            const { userId, live, currentId } = await sessionsOf(res);
            await deps.sessions.end(
              userId,
              live.filter((s) => s.id !== currentId).map((s) => s.id),
            );
            res.status(204).end();
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/:id')
    .delete(
      chain(...session, async (req: Request, res) => {
        const id = req.params.id;
        // Another user's session, an ended one and an id that is no id answer alike: nothing of this user's.
        if (typeof id !== 'string' || !uuid.safeParse(id).success) throw notFound('Session not found');
        const { userId, live, currentId } = await sessionsOf(res);
        if (!live.some((s) => s.id === id)) throw notFound('Session not found');
        await deps.sessions.end(userId, [id]);
        // Ending the current session is signing out: the browser's cookie goes too.
        if (id === currentId) setSessionCookie(res, '', new Date(0), deps.secureCookies);
        res.status(204).end();
      }),
    )
    .all(wrongMethod(['DELETE']));
  return router;
}
