import { useState } from 'preact/hooks';
import type { Messages } from '../i18n';

/** A new password's length, as the server counts it (code points): 12 to 128 (@pl/contracts' `newPassword`). */
const NEW_PASSWORD_MIN = 12;
const NEW_PASSWORD_MAX = 128;

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/**
 * react-hook-form's rules of a new password (sign-up, reset, change, joining by invitation): the length checked here,
 * the list of common passwords by the server, whose refusal lands beside the same field.
 */
export const newPasswordRules = (t: Messages) => ({
  required: t.required,
  validate: (v: string) =>
    codePoints(v) < NEW_PASSWORD_MIN ? t.tooShort(NEW_PASSWORD_MIN) : codePoints(v) <= NEW_PASSWORD_MAX || t.tooLong(NEW_PASSWORD_MAX),
});

/**
 * The token of the mailed link this page was opened from (`?token=`), read once; the address then drops it, so the
 * token stays out of the history and of the address bar a person might share.
 */
export function useMailedToken(): string | null {
  const [token] = useState<string | null>(() => {
    const found = new URLSearchParams(window.location.search).get('token');
    if (found !== null) window.history.replaceState(window.history.state, '', window.location.pathname);
    return found;
  });
  return token;
}
