import { z } from 'zod';
import { uuid } from './fields';
import { passkeyAssertion } from './passkeys';
import { identifierText } from './text';

/** A second factor's kind: what sign-in offers (`methods`) and what a proof names. */
export const secondFactorMethod = z.enum(['totp', 'recovery_code', 'passkey']);
export type SecondFactorMethod = z.infer<typeof secondFactorMethod>;

/** How many recovery codes a confirmation or a regeneration hands out. */
export const RECOVERY_CODES_PER_SET = 10;

/** A TOTP code as an authenticator app shows it: 6 digits. */
const totpCode = z.string().regex(/^[0-9]{6}$/, 'must be 6 digits');
/** A recovery code as handed out (`xxxx-xxxx-xxxx-xxxx`); case, spaces and dashes are forgiven when it is checked. */
const recoveryCode = identifierText(64);

/** `POST /api/v1/me/2fa/totp`: a new secret to scan, not yet on until confirmed with a code. */
export const totpEnrollment = z.object({
  /** The secret in base32, for typing into an app by hand. */
  secret: z.string(),
  /** `otpauth://totp/…` (SHA1, 6 digits, 30 s), what the QR encodes. */
  otpauth_uri: z.string(),
  /** The QR of `otpauth_uri`, as an SVG image in a `data:` URL. */
  qr_data_url: z.string(),
});
export type TotpEnrollment = z.infer<typeof totpEnrollment>;

export const confirmTotpBody = z.strictObject({ code: totpCode });

/** Recovery codes, shown once: only their hashes are kept. */
export const recoveryCodeSet = z.object({ recovery_codes: z.array(z.string()) });
export type RecoveryCodeSet = z.infer<typeof recoveryCodeSet>;

/** `POST /api/v1/auth/login` for a user with a second factor: no session yet, a challenge for the second step. */
export const loginChallenge = z.object({
  two_factor_required: z.literal(true),
  /** Lives 5 minutes and takes 5 tries; answered at `POST /api/v1/auth/login/2fa`. */
  challenge: z.string(),
  methods: z.array(secondFactorMethod),
});
export type LoginChallenge = z.infer<typeof loginChallenge>;

const oneProof = <T extends Record<string, unknown>>(body: T, fields: readonly (keyof T & string)[]): boolean =>
  fields.filter((f) => body[f] !== undefined).length === 1;

/** The second step of sign-in: the challenge and exactly one proof. */
export const loginSecondFactorBody = z
  .strictObject({
    challenge: identifierText(128),
    code: totpCode.optional(),
    recovery_code: recoveryCode.optional(),
    passkey: passkeyAssertion.optional(),
  })
  .refine((b) => oneProof(b, ['code', 'recovery_code', 'passkey']), {
    message: 'exactly one of code, recovery_code and passkey is required',
    path: ['code'],
  });
export type LoginSecondFactorBody = z.infer<typeof loginSecondFactorBody>;

/** `POST /api/v1/auth/step-up`: a second factor, verified now, renews the session's step-up for 10 minutes. */
export const stepUpBody = z
  .strictObject({ code: totpCode.optional(), passkey: passkeyAssertion.optional() })
  .refine((b) => oneProof(b, ['code', 'passkey']), { message: 'exactly one of code and passkey is required', path: ['code'] });
export type StepUpBody = z.infer<typeof stepUpBody>;

/** `PATCH /api/v1/account`: the account's settings an owner changes; each is optional, at least one is sent. */
export const updateAccountBody = z
  .strictObject({ require_two_factor: z.boolean().optional(), require_payout_approval: z.boolean().optional() })
  .refine((b) => b.require_two_factor !== undefined || b.require_payout_approval !== undefined, {
    message: 'at least one of require_two_factor and require_payout_approval is required',
    path: ['require_two_factor'],
  });

export const accountSettingsView = z.object({
  merchant_id: uuid,
  name: z.string(),
  /** Every member needs a second factor; one without is signed in only to enroll. */
  require_two_factor: z.boolean(),
  /** Every payout waits for another member's approval, whatever its amount (docs/payouts.md). */
  require_payout_approval: z.boolean(),
});
export type AccountSettingsView = z.infer<typeof accountSettingsView>;
