import type { RequestHandler, Response } from 'express';
import { unauthorized } from '@pl/errors';
import type { Merchant } from '../../../data/account.repository';
import type { ApiKeyLookup } from '../../../data/api-key.cache';
import { setIdentity } from '../context';
import { isApiKeyShape, isApiSecretShape } from './credentials';

const INVALID = 'Missing or invalid API key pair';

const setMerchant = (res: Response, merchant: Merchant | null): void => {
  if (!merchant) throw unauthorized(INVALID);
  setIdentity(res, { kind: 'merchant', merchant_id: merchant.id, auth: 'api_key', email_confirmed: merchant.emailConfirmed });
};

/**
 * `/merchant/v1/*`: the account key pair in `X-API-Key` + `X-API-Secret`. A pair verified moments ago is
 * answered at once, without a promise; any other goes to the look-up.
 */
export function authenticateApiKey(accounts: ApiKeyLookup): RequestHandler {
  return (req, res, next) => {
    const key = req.get('x-api-key') ?? '';
    const secret = req.get('x-api-secret') ?? '';
    if (!isApiKeyShape(key) || !isApiSecretShape(secret)) throw unauthorized(INVALID);
    const known = accounts.remembered?.(key, secret);
    if (known) {
      setMerchant(res, known);
      next();
      return undefined;
    }
    return accounts.findByApiKey(key, secret).then((merchant) => {
      setMerchant(res, merchant);
      next();
    });
  };
}
