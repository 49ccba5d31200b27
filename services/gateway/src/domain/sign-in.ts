import { forbidden, unauthorized } from '@pl/errors';
import type { SecondFactorMethod } from '@pl/contracts';
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
  create(
    userId: string,
    merchantId: string,
    epoch: number,
    now?: Date,
    secondFactorAt?: Date | null,
  ): Promise<{ token: string; session: { expiresAt: Date } }>;
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
  /** A challenge for sign-in's second step when the user has a second factor; null: none, the password is enough. */
  secondStep(pending: { userId: string; merchantId: string; epoch: number }): Promise<{ challenge: string; methods: SecondFactorMethod[] } | null>;
}

/** A session, or the limiter's refusal (the caller says when to retry, from the decision). */
export type SignInResult<D> =
  | { outcome: 'signed_in'; token: string; expiresAt: Date }
  | { outcome: 'second_factor'; challenge: string; methods: SecondFactorMethod[] }
  | { outcome: 'locked_out'; decision: D };

/**
 * Signs a user in to the dashboard, in their oldest account. Attempts are counted per email whether or not the
 * user exists, so a lockout reveals nothing either; an unknown email and a wrong password get the same error. A
 * user who is a member of no account (every membership removed) is 403 `common.err.forbidden`. A user with a second
 * factor gets no session yet: a challenge for the second step (`POST /api/v1/auth/login/2fa`).
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
  const second = await ports.secondStep({ userId: user.id, merchantId: account.merchantId, epoch: user.sessionEpoch });
  if (second) return { outcome: 'second_factor', ...second };
  return openSession(ports, { userId: user.id, merchantId: account.merchantId, epoch: user.sessionEpoch }, ip, null);
}

/**
 * Opens the session of a sign-in that passed every step; a sign-in from an address new for the user is audited.
 * `secondFactorAt`: when the second step verified a factor (it counts for step-up).
 */
export async function openSession(
  ports: Pick<SignInPorts<{ allowed: boolean }>, 'users' | 'sessions' | 'audit'>,
  who: { userId: string; merchantId: string; epoch: number },
  ip: string | null,
  secondFactorAt: Date | null,
): Promise<{ outcome: 'signed_in'; token: string; expiresAt: Date }> {
  if (ip !== null && (await ports.users.rememberSignInAddress(who.userId, ip))) {
    await ports.audit.record({ merchantId: who.merchantId, type: 'account.sign_in_new_address', ip, subject: ip, userId: who.userId });
  }
  const { token, session } = await ports.sessions.create(who.userId, who.merchantId, who.epoch, new Date(), secondFactorAt);
  return { outcome: 'signed_in', token, expiresAt: session.expiresAt };
}
