import { forbidden, unauthorized } from '@pl/errors';
import type { AuditRecorder } from './audit';

/** Checks an email and password; `null` for an unknown email and a wrong password alike. */
interface SignInUsers {
  findByLogin(email: string, password: string): Promise<{ id: string; sessionEpoch: number } | null>;
  /** The user's accounts, the one a sign-in opens first. */
  memberships(userId: string): Promise<{ merchantId: string }[]>;
  /** Remembers the address a user signed in from; true when it is new for that user. */
  rememberSignInAddress(userId: string, ip: string): Promise<boolean>;
}

/** Opens a dashboard session for a user in one of their accounts. */
interface SignInSessions {
  /** `epoch`: the user's session epoch now; a later password change moves it on and ends the session. */
  create(userId: string, merchantId: string, epoch: number): Promise<{ token: string; session: { expiresAt: Date } }>;
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
  users: SignInUsers;
  sessions: SignInSessions;
  limiter: SignInLimiter<D>;
  audit: AuditRecorder;
}

/** A session, or the limiter's refusal (the caller says when to retry, from the decision). */
export type SignInResult<D> = { outcome: 'signed_in'; token: string; expiresAt: Date } | { outcome: 'locked_out'; decision: D };

/**
 * Signs a user in to the dashboard, in their oldest account. Attempts are counted per email whether or not the
 * user exists, so a lockout reveals nothing either; an unknown email and a wrong password get the same error. A
 * user who is a member of no account (every membership removed) is 403 `common.err.forbidden`.
 */
export async function signIn<D extends { allowed: boolean }>(
  ports: SignInPorts<D>,
  credentials: { email: string; password: string },
  /** The client address as the gateway sees it (behind its trusted proxies); null when unknown. */
  ip: string | null,
): Promise<SignInResult<D>> {
  const decision = await ports.limiter.attempt(credentials.email);
  if (!decision.allowed) return { outcome: 'locked_out', decision };
  const user = await ports.users.findByLogin(credentials.email, credentials.password);
  if (!user) throw unauthorized('Invalid email or password');
  await ports.limiter.succeeded(credentials.email);
  const [account] = await ports.users.memberships(user.id);
  if (!account) throw forbidden('The user is a member of no account');
  if (ip !== null && (await ports.users.rememberSignInAddress(user.id, ip))) {
    await ports.audit.record({ merchantId: account.merchantId, type: 'account.sign_in_new_address', ip, subject: ip, userId: user.id });
  }
  const { token, session } = await ports.sessions.create(user.id, account.merchantId, user.sessionEpoch);
  return { outcome: 'signed_in', token, expiresAt: session.expiresAt };
}
