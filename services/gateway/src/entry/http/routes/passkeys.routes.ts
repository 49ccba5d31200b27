import { Router, type Request, type Response } from 'express';
import { emptyBody, formatMoscow, registerPasskeyBody, renamePasskeyBody, uuid, type PasskeyView } from '@pl/contracts';
import { notFound, unauthorized } from '@pl/errors';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Passkey, PasskeyActor } from '../../../domain/passkeys';
import type { HttpDeps } from '../deps';
import { identityOf, memberOf, sessionTokenOf } from '../context';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

const passkeyView = (p: Passkey): PasskeyView => ({
  id: p.id,
  name: p.name,
  created_at: formatMoscow(p.createdAt),
  last_used_at: p.lastUsedAt === null ? null : formatMoscow(p.lastUsedAt),
});

/** The path's passkey id; one that is not a UUID names nothing (404), like another user's passkey. */
const passkeyId = (req: Request): string => {
  const id = req.params.id;
  if (typeof id !== 'string' || !uuid.safeParse(id).success) throw notFound('Passkey not found');
  return id;
};

const actorOf = (req: Request, res: Response): PasskeyActor => ({
  userId: memberOf(res).userId,
  merchantId: identityOf(res).merchant_id,
  ip: req.ip ?? null,
});

/**
 * `/api/v1/me/2fa/passkeys`: the signed-in user's passkeys (docs/adr/0029-passkeys.md). They are the user's, not
 * the account's: every role manages its own, and another user's passkey is 404 as if it did not exist. Removing one
 * turns a second factor off, so it needs step-up, checked before the passkey is looked up.
 */
export function passkeysRoutes(deps: HttpDeps): Router {
  // `allow('self')`: every role manages its own passkeys; removing one needs step-up (domain/step-up.ts).
  const session = [authenticateSession(deps), limitByCredential(deps.rateLimits), allow('self')];
  const router = Router();
  router
    .route('/registration-options')
    .post(
      chain(
        ...session,
        route({
          body: emptyBody,
          emptyBodyAs: {},
          handle: async ({ res }) => {
            const user = await deps.users.findById(memberOf(res).userId);
            if (!user) throw unauthorized('Missing, invalid or expired session');
            res.json(await deps.passkeys.registrationOptions(user));
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/')
    .get(
      chain(...session, async (_req, res) => {
        res.json({ passkeys: (await deps.passkeyStore.list(memberOf(res).userId)).map(passkeyView) });
      }),
    )
    .post(
      chain(
        ...session,
        route({
          body: registerPasskeyBody,
          handle: async ({ req, res, body }) => {
            // The schema checks the shape; the library checks every member it reads (extension outputs are typed
            // by the library more narrowly than the open record the schema lets through).
            const response = body.response as RegistrationResponseJSON;
            const passkey = await deps.passkeys.register(actorOf(req, res), body.name, response);
            // Registering a new factor counts as verifying one: the session is stepped up from now.
            const token = sessionTokenOf(res);
            if (token !== undefined) await deps.sessions.recordSecondFactor(token);
            res.status(201).json(passkeyView(passkey));
          },
        }),
      ),
    )
    .all(wrongMethod(['GET', 'POST']));
  router
    .route('/:id')
    .patch(
      chain(
        ...session,
        route({
          body: renamePasskeyBody,
          handle: async ({ req, res, body }) => {
            const renamed = await deps.passkeyStore.rename(memberOf(res).userId, passkeyId(req), body.name);
            if (!renamed) throw notFound('Passkey not found');
            res.json(passkeyView(renamed));
          },
        }),
      ),
    )
    .delete(
      chain(...session, async (req, res) => {
        if (!(await deps.passkeyStore.remove(actorOf(req, res), passkeyId(req)))) throw notFound('Passkey not found');
        res.status(204).end();
      }),
    )
    .all(wrongMethod(['PATCH', 'DELETE']));
  return router;
}
