import type { RequestHandler } from 'express';
import { unauthorized } from '@pl/errors';
import type { AccountRepository } from '../../../data/account.repository';
import { setIdentity } from '../context';
import { isApiKeyShape, isApiSecretShape } from './credentials';

/** `/merchant/v1/*`: the account key pair in `X-API-Key` + `X-API-Secret`. */
export function authenticateApiKey(accounts: AccountRepository): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('x-api-key') ?? '';
    const secret = req.get('x-api-secret') ?? '';
    if (!isApiKeyShape(key) || !isApiSecretShape(secret)) throw unauthorized('Missing or invalid API key pair');
    const merchant = await accounts.findByApiKey(key, secret);
    if (!merchant) throw unauthorized('Missing or invalid API key pair');
    setIdentity(res, { kind: 'merchant', merchant_id: merchant.id, auth: 'api_key', email_confirmed: merchant.emailConfirmed });
    next();
  };
}
