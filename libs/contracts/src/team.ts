import { z } from 'zod';
import { moscowDate, uuid } from './fields';
import { identifierText, text, visibleName } from './text';

/** A member's role in one account (docs/accounts-and-teams.md has what each may do). */
export const accountRole = z.enum(['owner', 'admin', 'developer', 'finance', 'support', 'viewer']);
export type AccountRole = z.infer<typeof accountRole>;

/** The languages mail is written in. */
export const userLanguage = z.enum(['ru', 'en']);
export type UserLanguage = z.infer<typeof userLanguage>;

/** New passwords (sign-up, reset, change): 12..128 code points, and not a common password (checked by the gateway). */
export const NEW_PASSWORD_MIN_LENGTH = 12;
export const NEW_PASSWORD_MAX_LENGTH = 128;
export const newPassword = text({ max: NEW_PASSWORD_MAX_LENGTH, min: NEW_PASSWORD_MIN_LENGTH });

export const ACCOUNT_NAME_MAX_LENGTH = 100;
const email = z.email({ message: 'must be an email address' }).max(254);
/** A token from a mailed link: 32 random bytes, base64url; anything else is an invalid token, not a bad request. */
const mailedToken = identifierText(256);

export const signupBody = z.strictObject({
  email,
  password: newPassword,
  account_name: visibleName(ACCOUNT_NAME_MAX_LENGTH),
  /** The language of the mail sent to this user; Russian when absent. */
  language: userLanguage.optional(),
});
export const confirmEmailBody = z.strictObject({ token: mailedToken });
export const passwordResetBody = z.strictObject({ email: identifierText(254, 3) });
export const passwordResetConfirmBody = z.strictObject({ token: mailedToken, new_password: newPassword });
export const switchAccountBody = z.strictObject({ merchant_id: uuid });

/** `GET /api/v1/me`: the signed-in user, the account the session acts for, and every account the user belongs to. */
export const meView = z.object({
  user_id: uuid,
  /** The user's sign-in email. */
  email: z.string(),
  email_confirmed: z.boolean(),
  two_factor: z.object({ totp: z.boolean(), passkeys: z.number().int(), recovery_codes_left: z.number().int() }),
  /** The active account: `merchant_id` keeps its meaning (the account's id). */
  merchant_id: uuid,
  /**
   * The active account, the user's role in it, and its policy: `require_two_factor` (set by an owner or admin with
   * `PATCH /api/v1/account`) signs a member without a second factor in only to enroll one.
   */
  account: z.object({ merchant_id: uuid, role: accountRole, require_two_factor: z.boolean() }),
  memberships: z.array(z.object({ merchant_id: uuid, name: z.string(), role: accountRole })),
  /** When the active account was opened. */
  created_at: moscowDate,
});
export type MeView = z.infer<typeof meView>;

export const memberView = z.object({ user_id: uuid, email: z.string(), role: accountRole, joined_at: moscowDate });
export type MemberView = z.infer<typeof memberView>;
export const memberList = z.object({ members: z.array(memberView) });
export const updateMemberBody = z.strictObject({ role: accountRole });

export const invitationView = z.object({
  id: uuid,
  email: z.string(),
  role: accountRole,
  invited_by: uuid,
  created_at: moscowDate,
  expires_at: moscowDate,
});
export type InvitationView = z.infer<typeof invitationView>;
export const invitationList = z.object({ invitations: z.array(invitationView) });
export const createInvitationBody = z.strictObject({ email, role: accountRole });
/** Accepting: a signed-in user with the invited email joins; anyone else signs up that email with `password`. */
export const acceptInvitationBody = z.strictObject({ token: mailedToken, password: newPassword.optional() });
