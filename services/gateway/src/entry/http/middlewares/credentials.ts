import { parseCookie } from 'cookie';
import { CREDENTIAL_PREFIXES, modeOfCredential, type Mode } from '@pl/contracts';

export const SESSION_COOKIE = 'sid';

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), else null. */
export function bearerToken(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(authorization);
  return match?.[1] ?? null;
}

/** The `sid` cookie, else null. A malformed Cookie header is treated as no cookie. */
export function sessionCookie(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  try {
    return parseCookie(cookieHeader)[SESSION_COOKIE] || null;
  } catch {
    return null;
  }
}

/** The mode of a credential of our shape (a prefix of either mode, then 1..`max` URL-safe characters), else null. */
const shapedMode = (kind: 'apiKey' | 'apiSecret' | 'cashierKey', value: string, max: number): Mode | null => {
  const mode = modeOfCredential(kind, value);
  if (mode === null) return null;
  const rest = value.slice(CREDENTIAL_PREFIXES[kind][mode].length);
  return rest.length >= 1 && rest.length <= max && /^[A-Za-z0-9_-]+$/.test(rest) ? mode : null;
};

export const cashierKeyMode = (token: string): Mode | null => shapedMode('cashierKey', token, 247);
export const apiKeyMode = (key: string): Mode | null => shapedMode('apiKey', key, 128);
export const apiSecretMode = (secret: string): Mode | null => shapedMode('apiSecret', secret, 256);

/** A Bearer token that means to be a cashier key (`svc_live_` or `svc_test_`), well-formed or not. */
export const looksLikeCashierKey = (token: string): boolean => modeOfCredential('cashierKey', token) !== null;

/**
 * The mode of an API key pair: both halves well-formed and of one mode. A pair whose halves are of different
 * modes is no pair (null), refused like any malformed one, before any look-up.
 */
export function apiKeyPairMode(key: string, secret: string): Mode | null {
  const mode = apiKeyMode(key);
  return mode !== null && apiSecretMode(secret) === mode ? mode : null;
}
