import type { Response } from 'express';
import { stringifySetCookie } from 'cookie';
import { SESSION_COOKIE } from '../middlewares/credentials';

/** Sets (or, with an empty value and a past date, clears) the dashboard's `sid` cookie. */
export const setSessionCookie = (res: Response, value: string, expires: Date, secure: boolean): void => {
  const maxAge = Math.max(0, Math.floor((expires.getTime() - Date.now()) / 1000));
  res.append('Set-Cookie', stringifySetCookie(SESSION_COOKIE, value, { httpOnly: true, sameSite: 'lax', path: '/', secure, expires, maxAge }));
};
