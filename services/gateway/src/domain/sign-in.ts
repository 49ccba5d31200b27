import { unauthorized } from '@pl/errors';
import type { AuditRecorder } from './audit';

/** Checks an email and password; `null` for an unknown email and a wrong password alike. */
interface SignInAccounts {
  findByLogin(email: string, password: string): Promise<{ id: string; sessionEpoch: number } | null>;
  /** Remembers the address a merchant signed in from; true when it is new for that merchant. */
  rememberSignInAddress(merchantId: string, ip: string): Promise<boolean>;
}

/** Opens a dashboard session for a merchant. */
interface SignInSessions {
  /** `epoch`: the account's session epoch now; a later password change moves it on and ends the session. */
  create(merchantId: string, epoch: number): Promise<{ token: string; session: { expiresAt: Date } }>;
}

/**
 * Failed sign-ins per email. `attempt` takes a point before the password is checked, in one atomic step, so
 * parallel guesses cannot all pass; `succeeded` gives it back, so only failures stay counted.
 */
interface SignInLimiter<D extends { allowed: boolean }> {
  attempt(email: string): Promise<D>;
  succeeded(email: string): Promise<void>;
}

export interface SignInPorts<D extends { allowed: boolean }> {
  accounts: SignInAccounts;
  sessions: SignInSessions;
  limiter: SignInLimiter<D>;
  audit: AuditRecorder;
}

/** A session, or the limiter's refusal (the caller says when to retry, from the decision). */
export type SignInResult<D> = { outcome: 'signed_in'; token: string; expiresAt: Date } | { outcome: 'locked_out'; decision: D };

/**
 * Signs a merchant in to the dashboard. Attempts are counted per email whether or not the account exists, so
 * a lockout reveals nothing either; an unknown email and a wrong password get the same error.
 */
export async function signIn<D extends { allowed: boolean }>(
  ports: SignInPorts<D>,
  credentials: { email: string; password: string },
  /** The client address as the gateway sees it (behind its trusted proxies); null when unknown. */
  ip: string | null,
): Promise<SignInResult<D>> {
  const decision = await ports.limiter.attempt(credentials.email);
  if (!decision.allowed) return { outcome: 'locked_out', decision };
  const merchant = await ports.accounts.findByLogin(credentials.email, credentials.password);
  if (!merchant) throw unauthorized('Invalid email or password');
  await ports.limiter.succeeded(credentials.email);
  if (ip !== null && (await ports.accounts.rememberSignInAddress(merchant.id, ip))) {
    await ports.audit.record({ merchantId: merchant.id, type: 'account.sign_in_new_address', ip, subject: ip });
  }
  const { token, session } = await ports.sessions.create(merchant.id, merchant.sessionEpoch);
  return { outcome: 'signed_in', token, expiresAt: session.expiresAt };
}
