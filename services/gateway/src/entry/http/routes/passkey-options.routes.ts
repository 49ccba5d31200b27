import { Router } from 'express';
import { emptyBody, loginPasskeyOptionsBody } from '@pl/contracts';
import { invalidToken, twoFactorNotEnabled } from '@pl/errors';
import type { HttpDeps } from '../deps';
import { memberOf } from '../context';
import { authenticateSession } from '../middlewares/authenticate-session';
import { chain } from '../middlewares/chain';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential, limitLoginByIp } from '../middlewares/rate-limit';
import { route } from '../route';

/**
 * `POST /api/v1/auth/login/2fa/passkey-options` and `/step-up/passkey-options`: WebAuthn request options for the
 * browser's `startAuthentication`, naming the user's passkeys, with a challenge of 5 minutes and one answer. A call of
 * their own rather than a field of the login answer (docs/adr/0029-passkeys.md): a challenge is made only when the
 * user picks a passkey. A user without passkeys is 409 `two_factor.err.not_enabled`.
 */
export function passkeyOptionsRoutes(deps: HttpDeps): Router {
  const router = Router();
  const optionsFor = async (userId: string) => {
    const options = await deps.passkeys.authenticationOptions(userId);
    if (!options) throw twoFactorNotEnabled('The user has no passkey: answer with another second factor');
    return options;
  };
  router
    .route('/login/2fa/passkey-options')
    .post(
      limitLoginByIp(deps.rateLimits),
      route({
        body: loginPasskeyOptionsBody,
        handle: async ({ res, body }) => {
          // Looked at, not tried: the assertion that answers these options is the try.
          const pending = await deps.loginChallenges.peek(body.challenge);
          if (!pending) throw invalidToken('The sign-in challenge is unknown, expired, used or out of tries: sign in again');
          res.set('Cache-Control', 'no-store').json(await optionsFor(pending.userId));
        },
      }),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/step-up/passkey-options')
    .post(
      chain(
        authenticateSession(deps),
        limitByCredential(deps.rateLimits),
        route({
          body: emptyBody,
          emptyBodyAs: {},
          handle: async ({ res }) => {
            res.set('Cache-Control', 'no-store').json(await optionsFor(memberOf(res).userId));
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  return router;
}
