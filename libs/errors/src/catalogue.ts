/** What kind of failure an error is; each kind has one HTTP status (index.ts). */
export type ErrorKind =
  | 'validation'
  | 'invalid_json'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'unprocessable'
  | 'payload_too_large'
  | 'request_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

/** What the catalogue says of one error code: its kind (hence its HTTP status) and when it happens. */
export interface CatalogueEntry {
  kind: ErrorKind;
  /** When a client gets it, in a sentence a merchant understands (docs/errors.md, the OpenAPI document). */
  when: string;
  /** Only the operators' CLI (tools/admin) raises it: no HTTP route answers it. */
  cliOnly?: true;
}

/**
 * Every error code there is. The factories of index.ts build errors from it and `AppError` takes only its codes, so a
 * code cannot exist outside it; docs/errors.md and the OpenAPI document's error responses are generated from it.
 */
export const ERROR_CATALOGUE = {
  'common.err.validation_failed': {
    kind: 'validation',
    when: 'A request body or query parameter breaks its schema; `details` names every offending field.',
  },
  'common.err.invalid_json': { kind: 'invalid_json', when: 'The request body is not valid JSON (or not a JSON object where one is required).' },
  'common.err.unauthorized': {
    kind: 'unauthorized',
    when: 'Credentials are missing, unknown, revoked, expired or of the wrong kind for the route; a provider callback with a bad signature.',
  },
  'common.err.forbidden': {
    kind: 'forbidden',
    when: 'The credential is valid but the resource (shop, link, delivery, key) belongs to another merchant or shop; a change sent with the session cookie from another site; a wrong current password.',
  },
  'common.err.not_found': { kind: 'not_found', when: 'No route has this path, or the id in the path names nothing (a malformed id included).' },
  'common.err.method_not_allowed': {
    kind: 'method_not_allowed',
    when: 'The path exists but not with this method; `Allow` lists the methods it serves.',
  },
  'common.err.idempotency_conflict': {
    kind: 'conflict',
    when: 'The Idempotency-Key was used with a different request, the first request with it is still in progress, or it was used for a call that revealed a secret (secrets are never replayed).',
  },
  'common.err.payload_too_large': { kind: 'payload_too_large', when: "The request body exceeds the route's limit (64 KiB)." },
  'common.err.request_too_large': {
    kind: 'request_too_large',
    when: 'The request line and headers together exceed 16 KiB (a URL that long, say); answered before any route, on every path.',
  },
  'common.err.unsupported_media_type': { kind: 'unsupported_media_type', when: 'A request with a body whose Content-Type is not application/json.' },
  'common.err.rate_limited': {
    kind: 'rate_limited',
    when: 'The credential, address or login name spent its request budget; `Retry-After` says when to retry.',
  },
  'common.err.internal': { kind: 'internal', when: 'An unexpected failure; the message carries a log id for support.' },
  'common.err.unavailable': { kind: 'unavailable', when: 'A service the request needs is unavailable or timed out; retry after `Retry-After`.' },
  'common.err.invalid_config': {
    kind: 'validation',
    when: "The operators' CLI found its configuration (environment) invalid.",
    cliOnly: true,
  },
  'payment_link.err.not_pending': {
    kind: 'conflict',
    when: 'Canceling a link, or choosing how to pay one, that is already paid, expired, canceled or failed.',
  },
  'payment_link.err.not_paid': { kind: 'conflict', when: 'Refunding a link that is not paid.' },
  'payment_link.err.provider_unavailable': {
    kind: 'unavailable',
    when: "Choosing how to pay a link while the method's payment provider is unreachable, timed out or failing; the link keeps its previous method; retry after `Retry-After` or choose another method.",
  },
  'payment_link.err.method_unavailable': {
    kind: 'unprocessable',
    when: "Choosing a method the payment provider refused for this payment (an amount outside its limits, say); `details` carries the provider's message under `code: provider_refused`. Nothing is stored.",
  },
  'refund.err.amount_exceeds_refundable': {
    kind: 'unprocessable',
    when: "A refund larger than what is left to refund of the link: its amount less its succeeded and pending refunds (the platform's fee is not refunded).",
  },
  'refund.err.insufficient_balance': {
    kind: 'unprocessable',
    when: "A refund larger than the shop's available balance in that mode.",
  },
  'refund.err.not_pending': { kind: 'conflict', when: 'Simulating the outcome of a test refund that has already succeeded or failed.' },
  'payout.err.insufficient_available': {
    kind: 'unprocessable',
    when: "A payout whose amount plus the payout fee is more than the shop's `available` balance (credits still within PAYOUT_HOLD_HOURS are `pending`, not available).",
  },
  'payout.err.daily_limit': {
    kind: 'unprocessable',
    when: "A payout that would take the account's payouts of the last 24 hours (not canceled, rejected or failed) past PAYOUT_DAILY_MAX.",
  },
  'payout.err.destination_not_active': {
    kind: 'unprocessable',
    when: 'A payout to a destination still in its cool-down (`status: pending`, PAYOUT_DESTINATION_COOLDOWN_HOURS after it was added).',
  },
  'payout.err.on_hold': { kind: 'unprocessable', when: 'A payout of an account whose payouts an operator has put on hold (`payout:hold`).' },
  'payout.err.own_payout': {
    kind: 'forbidden',
    when: 'Approving a payout one made oneself: another member with the right to approve payouts must approve it.',
  },
  'payout.err.not_pending_approval': {
    kind: 'conflict',
    when: 'Approving or rejecting a payout that is not awaiting approval (approved, rejected, canceled or further on already).',
  },
  'payout.err.not_cancelable': {
    kind: 'conflict',
    when: 'Canceling a payout once it is processing or final: only `pending_approval` and `approved` payouts are canceled.',
  },
  'payout.err.already_final': {
    kind: 'conflict',
    when: 'Simulating the outcome of a test payout that is already paid, failed, canceled or rejected.',
  },
  'late_payment.err.already_resolved': {
    kind: 'conflict',
    when: "The operators' CLI resolving a late payment that was already settled or refunded.",
    cliOnly: true,
  },
  'unresolved_payment.err.already_resolved': {
    kind: 'conflict',
    when: "Settling or refunding an unresolved payment that was already settled or refunded (its routes, and the operators' CLI `unresolved:resolve`).",
  },
  'shop.err.not_approved': {
    kind: 'unprocessable',
    when: 'Creating a link for a shop that is not approved: in live mode a pending, rejected or blocked shop; in test mode a rejected or blocked one.',
  },
  'shop.err.no_webhook_url': { kind: 'unprocessable', when: 'Sending a test webhook for a shop that has no webhook address.' },
  'account.err.email_not_confirmed': {
    kind: 'forbidden',
    when: 'The account email is not confirmed yet, for an action that needs it: creating links (from the dashboard), shops or API keys, rotating a webhook secret, reissuing a key.',
  },
  'account.err.email_taken': {
    kind: 'conflict',
    when: "The operators' CLI creating an account whose email a user already has (sign-up over HTTP answers a known email as an unknown one).",
    cliOnly: true,
  },
  'api_key.err.limit_reached': {
    kind: 'unprocessable',
    when: 'Creating or reissuing an API key while the account already has the most active keys allowed.',
  },
  'api_key.err.inactive': { kind: 'conflict', when: 'Revoking or reissuing an API key that is already revoked or expired.' },
  'account.err.last_owner': {
    kind: 'conflict',
    when: "Changing the role of, or removing, an account's last owner: an account always keeps one.",
  },
  'auth.err.invalid_token': {
    kind: 'validation',
    when: "A token from a mailed link (email confirmation, password reset, invitation) that is unknown, already used or expired; a sign-in's second-step `challenge` that is unknown, older than 5 minutes, used, or out of its 5 tries.",
  },
  'auth.err.invalid_code': {
    kind: 'validation',
    when: 'A second factor that is wrong: a TOTP code not of this or a neighbouring 30-second step, one already used, an unknown or used recovery code, or a passkey assertion that does not verify (another site, an unknown or used options challenge, a bad signature, a signature counter that did not move forward).',
  },
  'auth.err.two_factor_required': {
    kind: 'forbidden',
    when: 'The user has no second factor, for an action that needs one (step-up), or the account requires every member to have one and this user has none: then only enrolling, `/api/v1/me` and signing out are served.',
  },
  'auth.err.step_up_required': {
    kind: 'forbidden',
    when: 'An action that moves money or credentials, and no second factor was verified in this session within the last 10 minutes: verify one at `POST /api/v1/auth/step-up` and repeat.',
  },
  'two_factor.err.already_enabled': {
    kind: 'conflict',
    when: 'Starting or confirming a TOTP enrollment while TOTP is already on (turn it off first).',
  },
  'two_factor.err.not_enabled': {
    kind: 'conflict',
    when: 'Confirming TOTP with no enrollment started, turning off TOTP that is not on, making recovery codes without a second factor, or asking for passkey options for a user who has no passkey.',
  },
  'passkey.err.verification_failed': {
    kind: 'validation',
    when: 'A passkey registration whose response does not verify: its challenge is unknown, used or older than 5 minutes, or it was made for another site, or its signature or data is wrong.',
  },
  'passkey.err.already_registered': { kind: 'conflict', when: 'Registering an authenticator credential that is already registered.' },
  'passkey.err.limit_reached': { kind: 'unprocessable', when: 'Registering a passkey while the user already has the most passkeys allowed (10).' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CATALOGUE, code);
