import { z } from 'zod';
import { moscowDate, pageQueryFields, uuid } from './fields';
import { identifierText } from './text';
import { mode } from './mode';
import { accountRole, newPassword } from './team';

export const API_KEY_LABEL_MAX_LENGTH = 100;
/** A merchant holds at most this many API keys that are neither revoked nor expired. */
export const ACTIVE_API_KEYS_MAX = 10;
export const GRACE_MINUTES_MAX = 10_080;

/** An API key as the merchant reads it: the secret is never in it (stored hashed). */
export const apiKeyView = z.object({
  id: uuid,
  label: z.string().nullable(),
  public_key: z.string(),
  /** `live` keys (`pk_live_`) create live links, `test` keys (`pk_test_`) test links. */
  mode,
  created_at: moscowDate,
  last_used_at: moscowDate.nullable(),
  expires_at: moscowDate.nullable(),
  revoked_at: moscowDate.nullable(),
});
export type ApiKeyView = z.infer<typeof apiKeyView>;

/** Create and reissue answer the key and its secret, once. */
export const apiKeyWithSecret = apiKeyView.extend({ api_secret: z.string() });
export type ApiKeyWithSecret = z.infer<typeof apiKeyWithSecret>;

export const apiKeyList = z.object({ api_keys: z.array(apiKeyView) });

export const createApiKeyBody = z.strictObject({
  label: identifierText(API_KEY_LABEL_MAX_LENGTH).optional(),
  /** Default `live`. A reissue keeps the key's mode. */
  mode: mode.optional(),
});
export const reissueApiKeyBody = z.strictObject({ grace_minutes: z.number().int().min(0).max(GRACE_MINUTES_MAX).optional() });
export const emptyBody = z.strictObject({});

/** A new password: 12..128 code points (team.ts), and not a common one (the gateway checks its list). */
export const changePasswordBody = z.strictObject({
  current_password: identifierText(1024),
  new_password: newPassword,
});

/** One of the user's dashboard sessions, as their Security page lists it: never its token. */
export const sessionView = z.object({
  /** The id the session is revoked by (`DELETE /api/v1/me/sessions/{id}`): random, unrelated to the token. */
  id: uuid,
  /** The client address it was opened from, as the gateway saw it. */
  ip: z.string().nullable(),
  /** The browser or client that opened it (its `User-Agent`, cut to 512 characters). */
  user_agent: z.string().nullable(),
  created_at: moscowDate,
  /** When it was last used, to the minute: the idle clock moves at most once a minute. */
  last_seen_at: moscowDate,
  /** The session this request came with. */
  current: z.boolean(),
});
export type SessionView = z.infer<typeof sessionView>;

export const sessionList = z.object({ sessions: z.array(sessionView) });

/** What an audit event records: credential changes and sign-ins from a new address. Never a secret. */
export const auditEventType = z.enum([
  'api_key.created',
  'api_key.reissued',
  'api_key.revoked',
  'shop.webhook_secret_rotated',
  'shop.cashier_key_reissued',
  'account.password_changed',
  'account.sign_in_new_address',
  'account.password_reset',
  'member.invited',
  'member.role_changed',
  'member.removed',
  'member.joined',
  'two_factor.totp_enabled',
  'two_factor.totp_disabled',
  'two_factor.recovery_codes_regenerated',
  'account.two_factor_policy_changed',
  'unresolved_payment.settled',
  'unresolved_payment.refunded',
  'refund.created_over_step_up_limit',
  'account.passkey_added',
  'account.passkey_removed',
  'payout_destination.added',
  'payout.created',
  'payout.approved',
  'shop.payout_schedule_set',
]);
export type AuditEventType = z.infer<typeof auditEventType>;

export const auditEvent = z.object({
  id: z.string(),
  type: auditEventType,
  at: moscowDate,
  /** The client address the change came from. */
  ip: z.string().nullable(),
  /** Which credential or shop: ids and public keys only. */
  subject: z.string().nullable(),
  /** The user who made the change; null for an API key or an operator. */
  user_id: uuid.nullable(),
  /** That user's email now. */
  user_email: z.string().nullable(),
  /** The role the user acted in, in this account. */
  role: accountRole.nullable(),
  /** The client's `User-Agent` (at most 512 characters); null when it sent none. */
  user_agent: z.string().nullable(),
});
export type AuditEvent = z.infer<typeof auditEvent>;

export const auditEventPage = z.object({
  audit_events: z.array(auditEvent),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});

export const listAuditEventsQuery = z.strictObject({
  ...pageQueryFields,
});
