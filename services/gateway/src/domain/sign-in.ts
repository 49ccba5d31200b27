import { unauthorized } from '@pl/errors';

/** Checks an email and password; `null` for an unknown email and a wrong password alike. */
interface SignInAccounts {
  findByLogin(email: string, password: string): Promise<{ id: string } | null>;
}

/** Opens a dashboard session for a merchant. */
interface SignInSessions {
  create(merchantId: string): Promise<{ token: string; session: { expiresAt: Date } }>;
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
): Promise<SignInResult<D>> {
  const decision = await ports.limiter.attempt(credentials.email);
  if (!decision.allowed) return { outcome: 'locked_out', decision };
  const merchant = await ports.accounts.findByLogin(credentials.email, credentials.password);
  if (!merchant) throw unauthorized('Invalid email or password');
  await ports.limiter.succeeded(credentials.email);
  const { token, session } = await ports.sessions.create(merchant.id);
  return { outcome: 'signed_in', token, expiresAt: session.expiresAt };
}
