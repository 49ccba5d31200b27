import { parseCookie } from 'cookie';

export const SESSION_COOKIE = 'sid';
export const CASHIER_KEY_PREFIX = 'svc_live_';

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

export const isCashierKeyShape = (token: string): boolean => /^svc_live_[A-Za-z0-9_-]{1,247}$/.test(token);
export const isApiKeyShape = (key: string): boolean => /^pk_live_[A-Za-z0-9_-]{1,128}$/.test(key);
export const isApiSecretShape = (secret: string): boolean => /^sk_live_[A-Za-z0-9_-]{1,256}$/.test(secret);
