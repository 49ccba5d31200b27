import type { AuditEventType } from '@pl/contracts';

/** How long a verified second factor counts for the actions below (the spec: the last 10 minutes of the session). */
export const STEP_UP_WINDOW_MS = 10 * 60 * 1000;

/** A refund above this needs step-up (10,000.00 RUB); at or below it, the role is enough. */
export const STEP_UP_REFUND_OVER_KOPECKS = 1_000_000;

/**
 * What moves money or credentials (docs/accounts-and-teams.md, "Step-up"), by the session route that does it: the one
 * table the step-up check reads (`allow()` in entry/http/middlewares/authorize.ts, after the role check). A route is
 * `METHOD /path` as Express mounts it. `audit`: the event the gateway records when the action succeeds, for actions
 * whose own code does not record one already (changes made in the links service). API keys and cashier keys
 * (`/merchant/v1`, `/api/v1/merchant/payments`) are not sessions and never step up.
 */
export const STEP_UP_ROUTES: Readonly<
  Record<string, { action: string; audit?: AuditEventType; condition?: 'refund_over_limit' | 'has_second_factor' }>
> = {
  'POST /api/v1/api-keys': { action: 'api_key.create' },
  'POST /api/v1/api-keys/:id/reissue': { action: 'api_key.reissue' },
  'POST /api/v1/api-keys/:id/revoke': { action: 'api_key.revoke' },
  'POST /api/v1/shops/:id/webhook-secret/rotate': { action: 'shop.webhook_secret.rotate' },
  'POST /api/v1/shops/:id/cashier-key/reissue': { action: 'shop.cashier_key.reissue' },
  'POST /api/v1/invitations': { action: 'member.invite' },
  'PATCH /api/v1/members/:user_id': { action: 'member.change' },
  'DELETE /api/v1/members/:user_id': { action: 'member.remove' },
  'DELETE /api/v1/me/2fa/totp': { action: 'two_factor.disable' },
  // Removing a passkey turns that second factor off (docs/adr/0029).
  'DELETE /api/v1/me/2fa/passkeys/:id': { action: 'two_factor.disable' },
  // Registering a passkey steps the session up, so a user who has a second factor already proves it first: else a
  // stale session would step itself up with a key of its own (the role matrix's stale cells). With none, it is enrolling.
  'POST /api/v1/me/2fa/passkeys': { action: 'two_factor.add', condition: 'has_second_factor' },
  // Not in the spec's list: a new set of recovery codes is a new second factor (docs/adr/0028).
  'POST /api/v1/me/2fa/recovery-codes': { action: 'two_factor.recovery_codes' },
  'POST /api/v1/auth/password': { action: 'account.password.change' },
  // Not in the spec's list: turning the account's two-factor policy off weakens every member (docs/adr/0028).
  'PATCH /api/v1/account': { action: 'account.policy' },
  'POST /api/v1/unresolved-payments/:id/settle': { action: 'unresolved_payment.settle', audit: 'unresolved_payment.settled' },
  'POST /api/v1/unresolved-payments/:id/refund': { action: 'unresolved_payment.refund', audit: 'unresolved_payment.refunded' },
  // Only above STEP_UP_REFUND_OVER_KOPECKS: the route checks once it knows the amount (`assertStepUp`).
  'POST /api/v1/payment-links/:id/refunds': {
    action: 'refund.over_limit',
    audit: 'refund.created_over_step_up_limit',
    condition: 'refund_over_limit',
  },
  'POST /api/v1/payout-destinations': { action: 'payout_destination.create', audit: 'payout_destination.added' },
  'POST /api/v1/payouts': { action: 'payout.create', audit: 'payout.created' },
  'POST /api/v1/payouts/:id/approve': { action: 'payout.approve', audit: 'payout.approved' },
  // Not in the spec's list: a schedule creates payouts to its destination with nobody present (docs/adr/0046).
  'PUT /api/v1/shops/:id/payout-schedule': { action: 'payout_schedule.set', audit: 'shop.payout_schedule_set' },
};

export type StepUpRoute = (typeof STEP_UP_ROUTES)[string];

/** The session's second-factor state, as the step-up check reads it. */
export interface SecondFactorState {
  /** The user has a second factor on. */
  enrolled: boolean;
  /** When one was last verified in this session. */
  verifiedAt: Date | null;
}

/**
 * Whether a session may do a step-up action now: `two_factor_required` when the user has no second factor at all,
 * `step_up_required` when none was verified in the window (a time in the future, a skewed clock, counts as none).
 */
export function stepUpVerdict(state: SecondFactorState, now: Date = new Date()): 'ok' | 'two_factor_required' | 'step_up_required' {
  if (!state.enrolled) return 'two_factor_required';
  const at = state.verifiedAt?.getTime();
  if (at === undefined || at > now.getTime() || now.getTime() - at >= STEP_UP_WINDOW_MS) return 'step_up_required';
  return 'ok';
}

/**
 * The routes a member without a second factor may use while their account requires one: enrolling, reading who they
 * are, switching to another account, confirming their email and signing out. Everything else is 403
 * `auth.err.two_factor_required` (docs/adr/0028).
 */
const ENROLL_ONLY_PATHS: readonly RegExp[] = [
  /^\/api\/v1\/me$/,
  /^\/api\/v1\/me\/2fa\/totp(\/confirm)?$/,
  /^\/api\/v1\/me\/2fa\/passkeys(\/.*)?$/,
  /^\/api\/v1\/auth\/(logout|switch|confirm-email\/resend)$/,
];

export const servedWhileEnrolling = (path: string): boolean => ENROLL_ONLY_PATHS.some((p) => p.test(path));
