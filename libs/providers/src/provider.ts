import type { CryptoNetwork } from '@pl/contracts';

/**
 * The interface every payment provider implements (docs/product-decisions.md, "Payment providers").
 * Everything provider-specific (header names, status words, signature rules, amount formats) stays behind it:
 * links and the gateway see only these types.
 */

/** The `gateway_provider` values a link or an attempt can carry. */
export type ProviderName = 'sandbox' | 'raiffeisen_sbp' | 'heleket';

export type PaymentMethod = 'sbp' | 'crypto';

/**
 * How long one call may take and how to abandon it. The adapter aborts its HTTP request at the deadline
 * (`PROVIDER_REQUEST_TIMEOUT_MS`) or when `signal` aborts, whichever comes first.
 */
export interface CallContext {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** What a select asks of a provider: one attempt of one link. */
export interface CreatePaymentRequest {
  /** The attempt's provider order id: `<link id>-<attempt number>` (at most 40 characters). */
  readonly orderId: string;
  readonly linkId: string;
  readonly method: PaymentMethod;
  /** Set for crypto, null for SBP. */
  readonly network: CryptoNetwork | null;
  /** What the buyer owes in kopecks (the link's `payer_amount`). */
  readonly payerAmountKopecks: number;
  /** The link's description, or null (the adapter falls back to `Order <merchantOrderId>`). */
  readonly description: string | null;
  /** The merchant's `order_id` of the link, or null. */
  readonly merchantOrderId: string | null;
  readonly expiresAt: Date;
  /** The link's `return_url`, or null. */
  readonly returnUrl: string | null;
}

/** The provider's payment as the link shows it (the link's gateway fields, `docs/product-decisions.md`). */
export interface ProviderPayment {
  readonly gatewayPaymentId: string;
  readonly depositAddress: string;
  /** What the checkout draws as a QR code (an NSPK payload URL for SBP, a payment URI or the address for crypto). */
  readonly qr: string;
  readonly toCurrency: string;
  readonly payerCurrency: string;
  /** The coin amount asked, as a decimal string of the coin's precision; null for SBP. */
  readonly payerCryptoAmount: string | null;
  /** The crypto network (`USDT-TRC20`, ...) or `SBP`. */
  readonly network: string;
}

/**
 * A payment's state as its provider reports it, from a callback or a status read, mapped to what the
 * platform does with it (docs/product-decisions.md, "Payment providers"; the statuses of each provider):
 * - `unpaid`: nothing has arrived yet (Heleket `check`, Raiffeisen `NO_INFO`/`IN_PROGRESS` or 404);
 * - `confirming`: seen, not yet final (Heleket `process`, `confirm_check`);
 * - `partially_paid`: part arrived, the invoice waits for the rest (Heleket `wrong_amount_waiting`);
 * - `paid`: paid in full; `paid_over`: paid, with a surplus;
 * - `underpaid`: final, less than asked arrived (Heleket `wrong_amount`; Raiffeisen `SUCCESS` for less, which its
 *   adapter reports as `paid` and {@link judgeArrivedAmount} turns into `underpaid`, or `paid_over` for more);
 * - `ended_unpaid`: the attempt ended with nothing paid; the link stays pending (Heleket `cancel`);
 * - `declined`: the provider declined the payer's payment of this attempt, which fails; the link stays pending and the
 *   buyer may pay again in a new attempt (Raiffeisen `DECLINED`);
 * - `failed`: the provider failed the payment (Heleket `fail`, `system_fail`);
 * - `locked`: what arrived is held for AML checks (Heleket `locked`).
 */
export type PaymentStatus =
  'unpaid' | 'confirming' | 'partially_paid' | 'paid' | 'paid_over' | 'underpaid' | 'ended_unpaid' | 'declined' | 'failed' | 'locked';

/** Statuses after which the provider will not change the payment again (sync stops reading it). */
export const FINAL_PAYMENT_STATUSES: ReadonlySet<PaymentStatus> = new Set([
  'paid',
  'paid_over',
  'underpaid',
  'ended_unpaid',
  'declined',
  'failed',
  'locked',
]);

export interface PaymentState {
  readonly provider: ProviderName;
  readonly gatewayPaymentId: string;
  /** The attempt's order id as the provider echoes it, when it does. */
  readonly orderId: string | null;
  readonly status: PaymentStatus;
  /** The provider's own status word, kept for operators and the dashboard (`paid_over`, `SUCCESS`, ...). */
  readonly providerStatus: string;
  /**
   * The RUB value of what arrived, in kopecks, rounded down (Heleket: the invoice's amount scaled by
   * payment_amount / payer_amount; Raiffeisen: the amount paid). Null when nothing arrived.
   */
  readonly arrivedKopecks: number | null;
  /** The coin amount that arrived (crypto), as the provider wrote it; null for SBP or when nothing arrived. */
  readonly arrivedCryptoAmount: string | null;
  /** For `partially_paid`: the coin amount still to send, as the provider wrote it; else null. */
  readonly remainingCryptoAmount: string | null;
  /** A refund of this payment the provider reports with the payment (Heleket's `refund_*` statuses), else null. */
  readonly refund: RefundState | null;
}

/**
 * A state judged against what its attempt asked. Some providers report a payment as paid without comparing it to
 * the attempt (Raiffeisen's `SUCCESS` callback names the amount paid, not the amount asked, and the adapter is
 * stateless), so whoever knows the attempt applies this to every state it learns, from a callback or a read alike:
 * `paid` for less than asked is `underpaid`, for more `paid_over`; any other state is returned unchanged.
 */
export function judgeArrivedAmount(state: PaymentState, askedKopecks: number): PaymentState {
  if (state.status !== 'paid' || state.arrivedKopecks === null || state.arrivedKopecks === askedKopecks) return state;
  return { ...state, status: state.arrivedKopecks < askedKopecks ? 'underpaid' : 'paid_over' };
}

/** What a refund asks of the provider that took the payment. */
export interface CreateRefundRequest {
  /** Our refund id: the provider's idempotency key where it has one (Raiffeisen `refundId`). */
  readonly refundId: string;
  /** The attempt's provider order id (`<link id>-<n>`). */
  readonly orderId: string;
  readonly gatewayPaymentId: string;
  readonly amountKopecks: number;
  /** True when the refund gives back the whole payment (Heleket omits `amount` then). */
  readonly whole: boolean;
  /** The buyer's address for a crypto refund; null for SBP (back to the payer's account). */
  readonly destination: string | null;
  readonly description: string | null;
  /**
   * True when no earlier call for this refund was made, so none can have reached the provider. A provider without
   * idempotency for refunds (Heleket) reads the payment first: on a repeat (false or absent) it never sends while the
   * payment shows a refund in progress or done, and returns that refund's state instead; on a first call it sends
   * after an earlier refund of the same payment is done, so a second partial refund is not mistaken for the first.
   */
  readonly firstCall?: boolean;
}

export type RefundStatus = 'pending' | 'succeeded' | 'failed';

export interface RefundState {
  readonly provider: ProviderName;
  /** Our refund id when the provider names it (Raiffeisen), else null. */
  readonly refundId: string | null;
  /** The id the provider's refund callbacks and status reads name. */
  readonly gatewayRefundId: string;
  readonly status: RefundStatus;
  readonly providerStatus: string;
  /** Why a failed refund failed, in the provider's words when it gives them (the sandbox's callbacks do); else absent. */
  readonly failureReason?: string | null;
}

/** What to read a refund by. */
export interface RefundRef {
  readonly refundId: string;
  readonly gatewayRefundId: string | null;
  readonly gatewayPaymentId: string;
  readonly orderId: string;
}

/** A callback as the gateway received it: the exact bytes, the headers, and the sender's address. */
export interface CallbackRequest {
  readonly rawBody: Buffer;
  /** Reads one header by name, case-insensitively. */
  header(name: string): string | undefined;
  /** The sender's address, already resolved through `TRUSTED_PROXIES`. */
  readonly remoteAddress: string;
}

export type CallbackRefusal = 'signature' | 'address' | 'malformed';

/** The answer a provider expects to a callback it sent. */
export interface CallbackReply {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

export type CallbackEvent = { readonly kind: 'payment'; readonly state: PaymentState } | { readonly kind: 'refund'; readonly state: RefundState };

export type CallbackVerdict =
  | { readonly ok: true; readonly event: CallbackEvent; readonly reply: CallbackReply }
  | { readonly ok: false; readonly reason: CallbackRefusal; readonly reply: CallbackReply };

/**
 * One crypto network a provider takes now, with its limits as the provider writes them (Heleket: decimal strings in
 * the coin), or null where it states none. The platform knows a payment's coin amount only from the provider's
 * answer to a create, so the limits are shown, not applied: the provider refuses an amount outside them (a 422).
 */
export interface NetworkOffer {
  readonly network: CryptoNetwork;
  readonly minAmount: string | null;
  readonly maxAmount: string | null;
}

/** What a provider can take now: SBP or not, and which crypto networks. */
export interface AvailableMethods {
  readonly sbp: boolean;
  readonly networks: readonly NetworkOffer[];
}

/**
 * One payment provider. A call whose outcome is unknown (timeout, reset, 5xx, open circuit) rejects with
 * ProviderUnavailableError; a provider's refusal with ProviderRefusedError. No call repeats a request that
 * could move money without first reading the provider's state.
 */
export interface PaymentProvider {
  readonly name: ProviderName;
  /**
   * True when {@link getPayment} can read a payment by its order id alone (`gatewayPaymentId` empty): status sync reads
   * an attempt whose create answer was lost this way (Heleket's `payment/info` takes `order_id`; Raiffeisen reads by
   * qrId only).
   */
  readonly readsByOrderId?: boolean;
  /** True when {@link cancelPayment} really cancels (Raiffeisen deletes the QR), not a no-op. */
  readonly cancelsPayments?: boolean;
  createPayment(request: CreatePaymentRequest, ctx: CallContext): Promise<ProviderPayment>;
  /** The payment's state now, or null while the provider knows nothing of it yet (Raiffeisen 404). */
  getPayment(ref: { readonly gatewayPaymentId: string; readonly orderId: string }, ctx: CallContext): Promise<PaymentState | null>;
  /** Cancels an unpaid payment where the provider can (Raiffeisen deletes the QR); a no-op where it cannot. */
  cancelPayment(ref: { readonly gatewayPaymentId: string; readonly orderId: string }, ctx: CallContext): Promise<void>;
  createRefund(request: CreateRefundRequest, ctx: CallContext): Promise<RefundState>;
  /** The refund's state now, or null when the provider has no such refund. */
  getRefund(ref: RefundRef, ctx: CallContext): Promise<RefundState | null>;
  /** Verifies a callback over its raw bytes and sender and parses it; never throws on bad input. */
  verifyCallback(request: CallbackRequest): CallbackVerdict;
  /**
   * The methods it can take now (Heleket: its services list, cached; the others from their configuration).
   * Rejects with ProviderUnavailableError when it cannot tell (no list read yet and the provider down).
   */
  availableMethods(ctx: CallContext): Promise<AvailableMethods>;
}

export type UnavailableCause = 'timeout' | 'aborted' | 'network' | 'http_5xx' | 'rate_limited' | 'circuit_open' | 'bad_answer';

/** The outcome of a call is unknown or the provider cannot be reached: a 503 to the buyer, a retry for sync. */
export class ProviderUnavailableError extends Error {
  constructor(
    readonly provider: ProviderName,
    readonly operation: string,
    readonly why: UnavailableCause,
    options?: { cause?: unknown },
  ) {
    super(`${provider} ${operation}: ${why}`, options);
    this.name = 'ProviderUnavailableError';
  }
}

/** The provider answered and refused (Heleket `state: 1` or 422, Raiffeisen 4xx): nothing was created. */
export class ProviderRefusedError extends Error {
  constructor(
    readonly provider: ProviderName,
    readonly operation: string,
    /** The provider's own message, safe to show the merchant (control characters removed). */
    readonly providerMessage: string,
    readonly httpStatus: number,
  ) {
    super(`${provider} ${operation} refused (${httpStatus})`);
    this.name = 'ProviderRefusedError';
  }
}
