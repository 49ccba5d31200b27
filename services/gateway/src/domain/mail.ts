import type { UserLanguage } from '@pl/contracts';

/** The mails the gateway sends, by the `@pl/mail` template that writes each. */
type MailTemplate = 'signup_confirm' | 'signup_exists' | 'password_reset' | 'invitation' | 'password_changed';

/** One mail as it is queued: who to, which template, in which language, and the template's parameters. */
export interface OutgoingMail {
  to: string;
  template: MailTemplate;
  language: UserLanguage;
  params: Record<string, string>;
}

/** Where the links in mail point: dashboard pages under `PUBLIC_BASE_URL`, the token in the query. */
export interface MailLinks {
  confirmEmail(token: string): string;
  resetPassword(token: string): string;
  invitation(token: string): string;
  signIn(): string;
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
  };
}
