/**
 * Domain errors: one class per kind, a stable `domain.err.reason` code from the catalogue (catalogue.ts), and one
 * table that maps a kind to an HTTP status. Domain code throws these; transports (HTTP, NATS, Kafka) only serialize them.
 */
import { ERROR_CATALOGUE, isErrorCode, type ErrorCode, type ErrorKind } from './catalogue';

export { ERROR_CATALOGUE, isErrorCode, type CatalogueEntry, type ErrorCode, type ErrorKind } from './catalogue';

/** The one place that maps an error kind to its HTTP status. */
export const HTTP_STATUS_BY_KIND: Readonly<Record<ErrorKind, number>> = {
  validation: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  request_too_large: 431,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

/**
 * One problem with one input field, the only shape of a validation error's `details`, from every service
 * and the admin CLI. `field` is the dotted path of the field (`items.0.name`; a query parameter or CLI flag by
 * its name; '' for the input as a whole), `code` a machine-readable reason (zod's issue codes:
 * `invalid_type`, `too_big`, `unrecognized_keys`, `custom`, ...), `message` English for a person. No message
 * echoes the input or names an internal type.
 */
export interface FieldIssue {
  field: string;
  code: string;
  message: string;
}

/** The error as it travels between services and to clients: never a stack. */
export interface WireError {
  kind: ErrorKind;
  /** A catalogue code; typed as text because it arrives from another process. */
  code: string;
  message: string;
  details?: FieldIssue[];
}

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: ErrorCode,
    message: string,
    readonly details?: readonly FieldIssue[],
  ) {
    super(message);
    this.name = 'AppError';
  }

  get httpStatus(): number {
    return HTTP_STATUS_BY_KIND[this.kind];
  }

  toWire(): WireError {
    const wire: WireError = { kind: this.kind, code: this.code, message: this.message };
    if (this.details !== undefined) wire.details = [...this.details];
    return wire;
  }

  /** Every service builds its errors from the same catalogue; a code it does not hold is an internal error. */
  static fromWire(wire: WireError): AppError {
    if (!isErrorCode(wire.code)) return new AppError('internal', 'common.err.internal', wire.message);
    return new AppError(wire.kind, wire.code, wire.message, wire.details);
  }
}

/** The HTTP status of a catalogue code. */
export const httpStatusOf = (code: ErrorCode): number => HTTP_STATUS_BY_KIND[ERROR_CATALOGUE[code].kind];

/** An error of a catalogue code, of the kind the catalogue gives it. */
const fromCatalogue = (code: ErrorCode, message: string, details?: readonly FieldIssue[]): AppError =>
  new AppError(ERROR_CATALOGUE[code].kind, code, message, details);

/** 400 validation_failed; `details` names every offending field, so a client can point at each. */
export const validationFailed = (message: string, details: readonly FieldIssue[]): AppError =>
  fromCatalogue('common.err.validation_failed', message, details);
/** 400 validation_failed for one field: `field` and the message say what is wrong with it. */
export const invalidField = (field: string, message: string, code = 'custom'): AppError =>
  validationFailed(`${field || 'input'} ${message}`, [{ field, code, message }]);
export const invalidJson = (message = 'Request body is not valid JSON'): AppError => fromCatalogue('common.err.invalid_json', message);
export const unauthorized = (message = 'Missing or invalid credentials'): AppError => fromCatalogue('common.err.unauthorized', message);
export const invalidToken = (message = 'The link is invalid, already used or expired'): AppError => fromCatalogue('auth.err.invalid_token', message);
export const invalidCode = (message = 'The code is wrong or already used'): AppError => fromCatalogue('auth.err.invalid_code', message);
export const twoFactorRequired = (message = 'This needs a second factor: enroll one first'): AppError =>
  fromCatalogue('auth.err.two_factor_required', message);
export const stepUpRequired = (message = 'Verify a second factor (POST /api/v1/auth/step-up) and repeat'): AppError =>
  fromCatalogue('auth.err.step_up_required', message);
export const twoFactorAlreadyEnabled = (): AppError => fromCatalogue('two_factor.err.already_enabled', 'TOTP is already on');
export const twoFactorNotEnabled = (message = 'No second factor of this kind is on'): AppError =>
  fromCatalogue('two_factor.err.not_enabled', message);
export const lastOwner = (message = 'An account always keeps one owner'): AppError => fromCatalogue('account.err.last_owner', message);
export const forbidden = (message = 'Access to this resource is not allowed'): AppError => fromCatalogue('common.err.forbidden', message);
export const notFound = (message = 'Resource not found'): AppError => fromCatalogue('common.err.not_found', message);
export const methodNotAllowed = (message = 'Method not allowed on this route'): AppError => fromCatalogue('common.err.method_not_allowed', message);
export const payloadTooLarge = (message = 'Request body exceeds 64 KiB'): AppError => fromCatalogue('common.err.payload_too_large', message);
export const requestTooLarge = (message = 'The URL and headers exceed 16 KiB'): AppError => fromCatalogue('common.err.request_too_large', message);
export const unsupportedMediaType = (message = 'Content-Type must be application/json'): AppError =>
  fromCatalogue('common.err.unsupported_media_type', message);
/** By default the key's reuse for another request; the gateway also says when the first one is still in progress. */
export const idempotencyConflict = (message = 'This Idempotency-Key was already used with a different request body'): AppError =>
  fromCatalogue('common.err.idempotency_conflict', message);
export const rateLimited = (message = 'Too many requests'): AppError => fromCatalogue('common.err.rate_limited', message);
export const unavailable = (message = 'A dependency is unavailable; retry later'): AppError => fromCatalogue('common.err.unavailable', message);
export const internal = (message = 'Internal error'): AppError => fromCatalogue('common.err.internal', message);

export const shopNotApproved = (): AppError => fromCatalogue('shop.err.not_approved', 'Shop is not approved; payments are unavailable');
export const linkNotPending = (status: string): AppError => fromCatalogue('payment_link.err.not_pending', `Payment link is ${status}, not pending`);
export const emailNotConfirmed = (what = 'creating payment links'): AppError =>
  fromCatalogue('account.err.email_not_confirmed', `Confirm the account email before ${what}`);
export const providerUnavailable = (): AppError =>
  fromCatalogue(
    'payment_link.err.provider_unavailable',
    'The payment provider of this method is unavailable right now; retry later or choose another method',
  );
export const methodUnavailable = (message: string, details?: readonly FieldIssue[]): AppError =>
  fromCatalogue('payment_link.err.method_unavailable', message, details);
export const linkNotPaid = (status: string): AppError => fromCatalogue('payment_link.err.not_paid', `Payment link is ${status}, not paid`);
export const amountExceedsRefundable = (refundable: string): AppError =>
  fromCatalogue('refund.err.amount_exceeds_refundable', `The refund exceeds what is left to refund of the link (${refundable})`);
export const insufficientBalance = (): AppError =>
  fromCatalogue('refund.err.insufficient_balance', "The shop's available balance does not cover this refund");
export const refundNotPending = (status: string): AppError => fromCatalogue('refund.err.not_pending', `Refund is ${status}, not pending`);
export const latePaymentResolved = (): AppError => fromCatalogue('late_payment.err.already_resolved', 'The late payment is already resolved');
export const unresolvedPaymentResolved = (): AppError =>
  fromCatalogue('unresolved_payment.err.already_resolved', 'The unresolved payment is already resolved');
export const noWebhookUrl = (): AppError => fromCatalogue('shop.err.no_webhook_url', 'The shop has no webhook address; set webhook_url first');
export const apiKeyLimitReached = (max: number): AppError =>
  fromCatalogue('api_key.err.limit_reached', `At most ${max} active API keys; revoke one first`);
export const apiKeyInactive = (): AppError => fromCatalogue('api_key.err.inactive', 'The API key is already revoked or expired');
/** A replayed call that revealed a secret: a secret is shown once, never replayed. */
export const secretNotReplayed = (): AppError =>
  fromCatalogue(
    'common.err.idempotency_conflict',
    'This Idempotency-Key was already used for a call that revealed a secret; secrets are shown once, never replayed',
  );

export const passkeyVerificationFailed = (message = 'The passkey response does not verify; ask for new options and try again'): AppError =>
  fromCatalogue('passkey.err.verification_failed', message);
export const passkeyAlreadyRegistered = (): AppError => fromCatalogue('passkey.err.already_registered', 'This passkey is already registered');
export const passkeyLimitReached = (max: number): AppError => fromCatalogue('passkey.err.limit_reached', `At most ${max} passkeys; remove one first`);

export const payoutInsufficientAvailable = (): AppError =>
  fromCatalogue('payout.err.insufficient_available', "The payout and its fee exceed the shop's available balance");
export const payoutDailyLimit = (): AppError => fromCatalogue('payout.err.daily_limit', "The payout exceeds the account's payout limit for 24 hours");
export const payoutDestinationNotActive = (activeAt: string): AppError =>
  fromCatalogue('payout.err.destination_not_active', `The destination is in its cool-down until ${activeAt}`);
export const payoutsOnHold = (): AppError => fromCatalogue('payout.err.on_hold', "The account's payouts are on hold; contact support");
export const ownPayout = (): AppError => fromCatalogue('payout.err.own_payout', 'A payout is approved by another member than the one who made it');
export const payoutNotPendingApproval = (status: string): AppError =>
  fromCatalogue('payout.err.not_pending_approval', `Payout is ${status}, not pending_approval`);
export const payoutNotCancelable = (status: string): AppError =>
  fromCatalogue('payout.err.not_cancelable', `Payout is ${status}; it can no longer be canceled`);
export const payoutAlreadyFinal = (status: string): AppError => fromCatalogue('payout.err.already_final', `Payout is ${status} already`);
export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
