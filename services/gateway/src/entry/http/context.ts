import type { Response } from 'express';
import type { MerchantIdentity } from '@pl/contracts';
import { internal, unauthorized } from '@pl/errors';

/** What the middlewares leave for the ones after them, in `res.locals`. */
interface GatewayLocals {
  requestId?: string;
  identity?: MerchantIdentity;
  /** The session token the request was authenticated with (logout ends it). */
  sessionToken?: string;
  /** The parsed JSON body; numbers other than safe integers stay JsonNumberText. */
  body?: unknown;
  /** The validated command built from the body. */
  command?: unknown;
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

export const setBody = (res: Response, body: unknown): void => {
  locals(res).body = body;
};
export const bodyOf = (res: Response): unknown => locals(res).body;

export const setCommand = (res: Response, command: unknown): void => {
  locals(res).command = command;
};

/** The command a `validate` middleware built; the type is the one its builder returned. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- an unchecked cast; issue 20's typed route() helper replaces it
export const commandOf = <T>(res: Response): T => {
  const { command } = locals(res);
  if (command === undefined) throw internal('Route is missing its validation step');
  return command as T;
};
