import type { MailRequest } from '@pl/mail';

/** One mail as it is queued: who to, which template, in which language, and the template's parameters. */
export type OutgoingMail = MailRequest;

/** Where the links in mail point: dashboard pages under `PUBLIC_BASE_URL`, the token in the query. */
export interface MailLinks {
  confirmEmail(token: string): string;
  resetPassword(token: string): string;
  invitation(token: string): string;
  signIn(): string;
  /** The Security page: second factors and sessions (a reused TOTP code's notice points there). */
  security(): string;
}

export function mailLinks(publicBaseUrl: string): MailLinks {
  const page = (path: string, token?: string): string => {
    const url = new URL(`/dashboard/${path}`, publicBaseUrl);
    if (token !== undefined) url.searchParams.set('token', token);
    return url.toString();
  };
  return {
    confirmEmail: (token) => page('confirm-email', token),
    resetPassword: (token) => page('reset-password', token),
    invitation: (token) => page('invitation', token),
    signIn: () => page('login'),
    security: () => page('security'),
  };
}
