import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as every authenticator app reads it: SHA1, 6 digits, 30-second steps. */
const PERIOD_SECONDS = 30;
const SETTINGS = { algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS } as const;
/** Codes of the step before and after now are taken too: a phone's clock a little off, a code typed at a step's end. */
const WINDOW_STEPS = 1;
/** The issuer an app shows beside the account. */
const ISSUER = 'Payment links';

/** A new TOTP secret (160 random bits, as RFC 4226 recommends), in base32 as apps take it. */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

/** The `otpauth://totp/…` URI of a secret for a user's email: what the enrollment QR encodes. */
export const totpUri = (secret: string, email: string): string =>
  new TOTP({ ...SETTINGS, issuer: ISSUER, label: email, secret: Secret.fromBase32(secret) }).toString();

/**
 * The time step a code belongs to (now, or one step either side), or null for a wrong code. The caller refuses a step
 * not newer than the last one used, so each code works once; otpauth compares in constant time.
 */
export function totpStepOf(secret: string, code: string, now: Date = new Date()): number | null {
  const timestamp = now.getTime();
  const delta = TOTP.validate({ ...SETTINGS, token: code, secret: Secret.fromBase32(secret), timestamp, window: WINDOW_STEPS });
  return delta === null ? null : TOTP.counter({ period: PERIOD_SECONDS, timestamp }) + delta;
}

/** The code of a secret at a moment (tests and the local tools; never logged). */
export const totpCodeAt = (secret: string, at: Date): string =>
  TOTP.generate({ ...SETTINGS, secret: Secret.fromBase32(secret), timestamp: at.getTime() });
