import type { Request, RequestHandler, Response } from 'express';
import { unauthorized } from '@pl/errors';
import type { Merchant } from '../../../data/account.repository';
import type { ApiKeyLookup } from '../../../data/api-key.cache';
import type { RateLimits } from '../../../data/rate-limits';
import { setIdentity } from '../context';
import type { Mode } from '@pl/contracts';
import { apiKeyPairMode } from './credentials';
import { lookUpCountingFailures } from './failed-auth-limit';
import { credentialMode } from './request-mode';

const INVALID = 'Missing or invalid API key pair';

const setMerchant = (res: Response, merchant: Merchant, mode: Mode): void => {
  setIdentity(res, { kind: 'merchant', merchant_id: merchant.id, auth: 'api_key', mode, email_confirmed: merchant.emailConfirmed });
};

/** Looks the pair up unless the client IP's failures are spent; a failure counts against the IP. */
async function lookUp(accounts: ApiKeyLookup, limits: RateLimits, req: Request, res: Response, key: string, secret: string): Promise<Merchant> {
  const merchant = await lookUpCountingFailures(limits, req, res, () => accounts.findByApiKey(key, secret));
  if (!merchant) throw unauthorized(INVALID);
  return merchant;
}

/**
 * `/merchant/v1/*`: the account key pair in `X-API-Key` + `X-API-Secret`. A pair verified moments ago is
 * answered at once, without a promise; any other goes to the look-up, which failed authentications of
 * one client IP can exhaust (429 `common.err.rate_limited` until the minute is over). A pair of the wrong
 * shape, or whose halves are of different modes, is refused before any look-up, costing nothing, so it is not
 * counted. The pair's prefixes are its mode (a key's row cannot disagree with its prefix, and the cache is keyed by
 * the public key, so a test key never answers for a live one); a `Pl-Mode` naming the other mode is 400.
 */
export function authenticateApiKey(accounts: ApiKeyLookup, limits: RateLimits): RequestHandler {
  return (req, res, next) => {
    const key = req.get('x-api-key') ?? '';
    const secret = req.get('x-api-secret') ?? '';
    const pairMode = apiKeyPairMode(key, secret);
    if (pairMode === null) throw unauthorized(INVALID);
    const known = accounts.remembered?.(key, secret);
    if (known) {
      setMerchant(res, known, credentialMode(req, pairMode));
      next();
      return undefined;
    }
    return lookUp(accounts, limits, req, res, key, secret).then((merchant) => {
      setMerchant(res, merchant, credentialMode(req, pairMode));
      next();
    });
  };
}
