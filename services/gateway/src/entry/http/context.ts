import type { Response } from 'express';
import type { MerchantIdentity } from '@pl/contracts';
import { unauthorized } from '@pl/errors';

/**
 * What the middlewares leave for the ones after them, in `res.locals`: who the caller is. A route's parsed input
 * is not here: `route()` hands it to the handler as a typed value.
 */
interface GatewayLocals {
  requestId?: string;
  identity?: MerchantIdentity;
  /** The session token the request was authenticated with (logout ends it). */
  sessionToken?: string;
}

const locals = (res: Response): GatewayLocals => res.locals as GatewayLocals;

export const setRequestId = (res: Response, id: string): void => {
  locals(res).requestId = id;
};
export const requestIdOf = (res: Response): string => locals(res).requestId ?? '';

export const setIdentity = (res: Response, identity: MerchantIdentity, sessionToken?: string): void => {
  locals(res).identity = identity;
  if (sessionToken !== undefined) locals(res).sessionToken = sessionToken;
};

/** The authenticated caller; a route wired without authentication is a bug, so this refuses. */
export const identityOf = (res: Response): MerchantIdentity => {
  const identity = locals(res).identity;
  if (!identity) throw unauthorized();
  return identity;
};

export const sessionTokenOf = (res: Response): string | undefined => locals(res).sessionToken;
