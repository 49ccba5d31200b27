import type { Request, RequestHandler, Response } from 'express';
import { unauthorized } from '@pl/errors';
import type { AccountRepository } from '../../../data/account.repository';
import type { RateLimits } from '../../../data/rate-limits';
import type { ShopsClient } from '../../../data/shops.client';
import { requestIdOf, setIdentity } from '../context';
import { authenticateSessionToken, sessionTokenFrom, type SessionAuthDeps } from './authenticate-session';
import { bearerToken, cashierKeyMode, looksLikeCashierKey } from './credentials';
import { lookUpCountingFailures } from './failed-auth-limit';
import { credentialMode } from './request-mode';

const INVALID = 'Missing or invalid cashier key';

export interface CashierAuthDeps {
  accounts: AccountRepository;
  shops: ShopsClient;
  rateLimits: RateLimits;
}

/**
 * A key of the wrong shape is refused before any look-up, costing nothing, so it is not counted; a
 * well-formed key that names no shop counts against the client IP like a wrong API key pair. The key's prefix is
 * its mode; a `Pl-Mode` naming the other mode is 400.
 */
async function authenticateCashierKey(deps: CashierAuthDeps, key: string | null, req: Request, res: Response): Promise<void> {
  const keyMode = key === null ? null : cashierKeyMode(key);
  if (key === null || keyMode === null) throw unauthorized(INVALID);
  const shop = await lookUpCountingFailures(deps.rateLimits, req, res, () => deps.shops.findByCashierKey(key, requestIdOf(res)));
  if (!shop) throw unauthorized(INVALID);
  const merchant = await deps.accounts.findById(shop.merchant_id);
  if (!merchant) throw unauthorized(INVALID);
  setIdentity(res, {
    kind: 'merchant',
    merchant_id: merchant.id,
    auth: 'cashier',
    mode: credentialMode(req, keyMode),
    shop_id: shop.id,
    email_confirmed: merchant.emailConfirmed,
  });
}

const cashierKeyFrom = (req: Request): string | null => bearerToken(req.get('authorization'));

/** `POST /api/v1/merchant/payments`: `Authorization: Bearer svc_live_...` (or `svc_test_...`) only; the shop comes from the key. */
export function authenticateCashier(deps: CashierAuthDeps): RequestHandler {
  return async (req, res, next) => {
    await authenticateCashierKey(deps, cashierKeyFrom(req), req, res);
    next();
  };
}

/**
 * `/merchant/v1` routes a cashier key may also read (the daily report of its shop): a Bearer `svc_live_...` or
 * `svc_test_...` is a cashier key; anything else must be the account's API key pair.
 */
export function authenticateCashierOrApiKey(deps: CashierAuthDeps, apiKey: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const bearer = cashierKeyFrom(req);
    if (bearer !== null && looksLikeCashierKey(bearer)) return authenticateCashierKey(deps, bearer, req, res).then(() => next());
    return apiKey(req, res, next);
  };
}

/** `POST /api/v1/payment-links`: a Bearer `svc_live_...` or `svc_test_...` is a cashier key; anything else is a session. */
export function authenticateCashierOrSession(deps: CashierAuthDeps & SessionAuthDeps): RequestHandler {
  return async (req, res, next) => {
    const bearer = cashierKeyFrom(req);
    if (bearer !== null && looksLikeCashierKey(bearer)) await authenticateCashierKey(deps, bearer, req, res);
    else await authenticateSessionToken(deps, sessionTokenFrom(req), res);
    next();
  };
}
