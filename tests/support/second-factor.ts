import { Secret, TOTP } from 'otpauth';
import type { ApiResponse } from './http';

/** A call to the gateway as the test helpers make it (tests/support/http, the gateway tests' harness). */
type Reply = Pick<ApiResponse, 'status' | 'body' | 'text'>;
type Call = (method: string, path: string, options?: { headers?: Record<string, string>; body?: object }) => Promise<Reply>;

/** What a test user enrolled: their TOTP secret, and the recovery codes not used yet. */
interface Enrolled {
  secret: string;
  recoveryCodes: string[];
}

/** Users these helpers enrolled, by email: a later sign-in of the same user answers the second step with them. */
const enrolledUsers = new Map<string, Enrolled>();

/** The TOTP code of a secret at a moment, as an authenticator app shows it (RFC 6238, SHA1, 6 digits, 30 s). */
export const totpCode = (secret: string, at: Date = new Date()): string =>
  TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30, timestamp: at.getTime() });

/**
 * Waits for the next 30 s TOTP step when fewer than `ms` are left of this one. A test that names codes by their
 * distance from "now" (the step before, two steps away) must not see the step change under it, and the step's
 * boundary is the clock's own event: nothing else signals it.
 */
export async function aFreshTotpStep(ms = 10_000): Promise<void> {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < ms) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/**
 * An authenticator app for a user's TOTP secret: each call answers the code of now. The server takes each 30-second
 * step once, so before a second code the gateway's record of the last step used goes back a minute (`sql` is the
 * test system's), as if the last code had been used then: no test waits for a step to pass.
 */
export const authenticatorApp = (sql: (text: string, params: unknown[]) => Promise<unknown>, secret: string, email: string) => {
  let used = false;
  return async (): Promise<string> => {
    if (used)
      await sql(
        'UPDATE gateway.user_totp SET last_used_step = last_used_step - 2 WHERE user_id = (SELECT id FROM gateway.users WHERE lower(email) = lower($1))',
        [email],
      );
    used = true;
    return totpCode(secret);
  };
};

/** What these helpers enrolled for a user (their TOTP secret and unused recovery codes), or undefined. */
export const enrolledFactors = (email: string): Enrolled | undefined => enrolledUsers.get(email.toLowerCase());

const check = (res: Reply, status: number, what: string): Reply => {
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${res.text}`);
  return res;
};

/**
 * Turns TOTP on for the session's user (start, then confirm with the current code) and answers what it enrolled;
 * the session is stepped up by the confirmation, for 10 minutes.
 */
export async function enrollTotp(call: Call, token: string, email: string): Promise<Enrolled> {
  const headers = { Authorization: `Bearer ${token}` };
  const started = check(await call('POST', '/api/v1/me/2fa/totp', { headers, body: {} }), 201, 'TOTP start');
  const secret = started.body.secret as string;
  const confirmed = check(await call('POST', '/api/v1/me/2fa/totp/confirm', { headers, body: { code: totpCode(secret) } }), 200, 'TOTP confirm');
  const enrolled = { secret, recoveryCodes: [...(confirmed.body.recovery_codes as string[])] };
  enrolledUsers.set(email.toLowerCase(), enrolled);
  return enrolled;
}

/**
 * A session that may do what needs step-up (API keys, members, refunds over the limit…) for the next 10 minutes:
 * signs in, and either enrolls TOTP (the user's first time here: confirming counts as verifying) or answers sign-in's
 * second step with one of the user's recovery codes (a TOTP code works once per 30 s, and a test may sign in twice
 * in one step). `headers` go with the sign-in (a forwarded address, say).
 */
export async function steppedUpSession(call: Call, user: { email: string; password: string }, headers: Record<string, string> = {}): Promise<string> {
  const login = check(await call('POST', '/api/v1/auth/login', { headers, body: { email: user.email, password: user.password } }), 200, 'sign-in');
  if (login.body.two_factor_required !== true) {
    const token = login.body.session_token as string;
    await enrollTotp(call, token, user.email);
    return token;
  }
  const enrolled = enrolledUsers.get(user.email.toLowerCase());
  if (!enrolled) throw new Error(`${user.email} has a second factor these helpers did not enroll`);
  const recoveryCode = enrolled.recoveryCodes.pop();
  const second = await call('POST', '/api/v1/auth/login/2fa', { headers, body: { challenge: login.body.challenge, recovery_code: recoveryCode } });
  const token = check(second, 200, 'sign-in second step').body.session_token as string;
  if (enrolled.recoveryCodes.length < 2) {
    const fresh = await call('POST', '/api/v1/me/2fa/recovery-codes', { headers: { Authorization: `Bearer ${token}` }, body: {} });
    enrolled.recoveryCodes = [...(check(fresh, 201, 'new recovery codes').body.recovery_codes as string[])];
  }
  return token;
}
