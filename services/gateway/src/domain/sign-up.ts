import { forbidden, invalidToken, unauthorized } from '@pl/errors';
import type { UserLanguage } from '@pl/contracts';

/** What sign-up, confirmation and reset need of the user store; each mails in the transaction of its change. */
interface SignUpUsers {
  signUp(input: { email: string; password: string; accountName: string; language: UserLanguage }): Promise<void>;
  confirmEmail(token: string): Promise<boolean>;
  resendConfirmation(userId: string): Promise<void>;
  requestPasswordReset(email: string): Promise<void>;
  resetPassword(token: string, next: string, ip: string | null): Promise<boolean>;
}

export interface SignUpPorts {
  users: SignUpUsers;
  /** Refuses a common password: 400 validation_failed naming `field`. */
  assertUncommon(password: string, field: string): void;
  /** `SIGNUP_ENABLED`. */
  signupEnabled: boolean;
}

/**
 * A new user with a new account they own, unconfirmed, and a confirmation mail; a known email gets a mail saying
 * an account exists. The caller answers both alike (202), so the answer tells nobody whether an email is known.
 */
export async function signUp(
  ports: SignUpPorts,
  body: { email: string; password: string; account_name: string; language?: UserLanguage | undefined },
): Promise<void> {
  if (!ports.signupEnabled) throw forbidden('Sign-up is turned off on this deployment');
  ports.assertUncommon(body.password, 'password');
  await ports.users.signUp({ email: body.email, password: body.password, accountName: body.account_name, language: body.language ?? 'ru' });
}

/** Confirms the email a token was mailed to; an unknown, used or expired token is 400 `auth.err.invalid_token`. */
export async function confirmEmail(ports: SignUpPorts, token: string): Promise<void> {
  if (!(await ports.users.confirmEmail(token))) throw invalidToken();
}

export async function resendConfirmation(ports: SignUpPorts, userId: string | undefined): Promise<void> {
  if (userId === undefined) throw unauthorized('Missing, invalid or expired session');
  await ports.users.resendConfirmation(userId);
}

/** A reset link for a known email, nothing for an unknown one: the caller answers both alike (202). */
export async function requestPasswordReset(ports: SignUpPorts, email: string): Promise<void> {
  await ports.users.requestPasswordReset(email);
}

/**
 * A new password through a reset token; every session of the user ends. The password is checked before the token
 * is spent, so a refused password leaves the link usable.
 */
export async function resetPassword(ports: SignUpPorts, body: { token: string; new_password: string }, ip: string | null): Promise<void> {
  ports.assertUncommon(body.new_password, 'new_password');
  if (!(await ports.users.resetPassword(body.token, body.new_password, ip))) throw invalidToken();
}
