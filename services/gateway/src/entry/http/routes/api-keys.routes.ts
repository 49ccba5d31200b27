import { Router, type Request, type Response } from 'express';
import {
  createApiKeyBody,
  emptyBody,
  formatMoscow,
  formatMoscowOrNull,
  reissueApiKeyBody,
  type ApiKeyView,
  type ApiKeyWithSecret,
} from '@pl/contracts';
import {
  createApiKey,
  listApiKeys,
  reissueApiKey,
  revokeApiKey,
  type ApiKey,
  type ApiKeyPorts,
  type Caller,
  type NewApiKey,
  ownedKey,
} from '../../../domain/api-keys';
import type { HttpDeps } from '../deps';
import { identityOf } from '../context';
import { authenticateSession } from '../middlewares/authenticate-session';
import { allow } from '../middlewares/authorize';
import { chain } from '../middlewares/chain';
import { pathIdAndBody, revealsSecret } from '../middlewares/idempotency';
import { wrongMethod } from '../middlewares/not-found';
import { limitByCredential } from '../middlewares/rate-limit';
import { route } from '../route';

const view = (k: ApiKey): ApiKeyView => ({
  id: k.id,
  label: k.label,
  public_key: k.publicKey,
  mode: k.mode,
  created_at: formatMoscow(k.createdAt),
  last_used_at: formatMoscowOrNull(k.lastUsedAt),
  expires_at: formatMoscowOrNull(k.expiresAt),
  revoked_at: formatMoscowOrNull(k.revokedAt),
});

const withSecret = (created: NewApiKey): ApiKeyWithSecret => ({ ...view(created.key), api_secret: created.apiSecret });

/** The `:id` of the path; Express types a param as possibly repeated. */
const paramId = (req: Request): string => {
  const id = req.params.id;
  return typeof id === 'string' ? id : '';
};

const callerOf = (req: Request, res: Response): Caller => ({ identity: identityOf(res), ip: req.ip ?? null });

/** `/api/v1/api-keys`: the merchant's API keys, dashboard session only. Secrets are shown by create and reissue, once. */
export function apiKeysRoutes(deps: HttpDeps): Router {
  const ports: ApiKeyPorts = { keys: deps.accounts, changes: deps.credentials };
  const session = [authenticateSession(deps), limitByCredential(deps.rateLimits)];
  const keyExists = (req: Request, res: Response) => ownedKey(ports, callerOf(req, res), paramId(req));
  const router = Router();
  router
    .route('/')
    .get(
      chain(...session, allow('integrate'), async (req, res) => {
        const keys = await listApiKeys(ports, callerOf(req, res));
        res.json({ api_keys: keys.map(view) });
      }),
    )
    .post(
      chain(
        ...session,
        allow('integrate'),
        route({
          body: createApiKeyBody,
          emptyBodyAs: {},
          idempotency: revealsSecret(deps.idempotency, 'api-v1-api-key-create', deps.log),
          handle: async ({ req, res, body }) => {
            // The body's mode, live by default; not the session's Pl-Mode, which says where the dashboard acts.
            res.status(201).json(withSecret(await createApiKey(ports, callerOf(req, res), body.label ?? null, body.mode ?? 'live')));
          },
        }),
      ),
    )
    .all(wrongMethod(['GET', 'POST']));
  router
    .route('/:id/reissue')
    .post(
      chain(
        ...session,
        allow('integrate', keyExists),
        route({
          body: reissueApiKeyBody,
          emptyBodyAs: {},
          idempotency: revealsSecret(deps.idempotency, 'api-v1-api-key-reissue', deps.log, pathIdAndBody),
          handle: async ({ req, res, body }) => {
            const issued = await reissueApiKey(ports, callerOf(req, res), paramId(req), body.grace_minutes ?? 0);
            res.status(201).json(withSecret(issued));
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  router
    .route('/:id/revoke')
    .post(
      chain(
        ...session,
        allow('integrate', keyExists),
        route({
          body: emptyBody,
          emptyBodyAs: {},
          handle: async ({ req, res }) => {
            res.json(view(await revokeApiKey(ports, callerOf(req, res), paramId(req))));
          },
        }),
      ),
    )
    .all(wrongMethod(['POST']));
  return router;
}
