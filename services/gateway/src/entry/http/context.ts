import type { ServerResponse } from 'node:http';
import type { Response } from 'express';
import type { AccountRole, MerchantIdentity, Mode } from '@pl/contracts';
import { unauthorized } from '@pl/errors';
import { MODE_ATTRIBUTE, type Span } from '@pl/telemetry';
import type { SecondFactorState } from '../../domain/step-up';

/**
 * What the middlewares leave for the ones after them, in `res.locals`: who the caller is. A route's parsed input
 * is not here: `route()` hands it to the handler as a typed value.
 */
interface GatewayLocals {
  requestId?: string;
  identity?: MerchantIdentity;
  /** The session token the request was authenticated with (logout ends it). */
  sessionToken?: string;
  /** A session's user and their role in the session's account; absent for API keys and cashier keys. */
  member?: SessionMember;
  /** A session's second factors: whether the user has one, and when one was last verified in the session. */
  secondFactor?: SecondFactorState;
  /** The request's HTTP server span, taken while it is the active one (before any other span of the request). */
  span?: Span;
}

const locals = (res: Response): GatewayLocals => res.locals as GatewayLocals;

export const setRequestId = (res: Response, id: string): void => {
  locals(res).requestId = id;
};
export const requestIdOf = (res: Response): string => locals(res).requestId ?? '';

/** Keeps the request's span, which learns the request's mode once the caller is known; marked `none` until then. */
export const setRequestSpan = (res: Response, span: Span | undefined): void => {
  locals(res).span = span;
  span?.setAttribute(MODE_ATTRIBUTE, 'none');
};

/** The request's HTTP server span, when the request is traced. */
export const requestSpanOf = (res: Response): Span | undefined => locals(res).span;

export const setIdentity = (res: Response, identity: MerchantIdentity, sessionToken?: string): void => {
  locals(res).identity = identity;
  if (sessionToken !== undefined) locals(res).sessionToken = sessionToken;
  locals(res).span?.setAttribute(MODE_ATTRIBUTE, identity.mode);
};

/**
 * The mode a request acted in, for its metrics and log line: `none` when it was not (or not yet) authenticated. Takes
 * the bare node response too: the metrics wrap the app, outside express, and read it when the response ends.
 */
export const modeLabelOf = (res: Response | ServerResponse): Mode | 'none' =>
  ((res as Partial<Response>).locals as GatewayLocals | undefined)?.identity?.mode ?? 'none';

/** The authenticated caller; a route wired without authentication is a bug, so this refuses. */
export const identityOf = (res: Response): MerchantIdentity => {
  const identity = locals(res).identity;
  if (!identity) throw unauthorized();
  return identity;
};

export const sessionTokenOf = (res: Response): string | undefined => locals(res).sessionToken;

/** Who is behind a session: the user, and the role they hold in the account the session acts for. */
export interface SessionMember {
  userId: string;
  role: AccountRole;
}

export const setMember = (res: Response, member: SessionMember): void => {
  locals(res).member = member;
};

/** A session's user; a route that needs one but was wired without session authentication is a bug, so this refuses. */
export const memberOf = (res: Response): SessionMember => {
  const member = locals(res).member;
  if (!member) throw unauthorized();
  return member;
};

/** A session's user, or undefined for API keys and cashier keys. */
export const maybeMemberOf = (res: Response): SessionMember | undefined => locals(res).member;

export const setSecondFactor = (res: Response, state: SecondFactorState): void => {
  locals(res).secondFactor = state;
};

/** A session's second-factor state; undefined for API keys and cashier keys (they never step up). */
export const secondFactorOf = (res: Response): SecondFactorState | undefined => locals(res).secondFactor;
