import type { PaymentMethod, ProviderPayment } from '@pl/providers';
import type { LinkRecord, LinkSelection } from './link';

export type AttemptState = 'creating' | 'pending' | 'unknown' | 'refused' | 'superseded' | 'paid' | 'duplicate' | 'late' | 'failed' | 'ended_unpaid';

/** One select of a link at its provider (docs/product-decisions.md, "attempts"). Money in kopecks. */
export interface Attempt {
  linkId: string;
  n: number;
  /** `<link id>-<n>`: what the provider knows the attempt by. */
  orderId: string;
  provider: string;
  method: PaymentMethod;
  networkAsked: string | null;
  feeBps: number;
  payerAmount: number;
  merchantCredit: number;
  platformRevenue: number;
  state: AttemptState;
  /** The provider's payment, once it answered. */
  payment: ProviderPayment | null;
  /** Whether it is the link's newest attempt (the one its gateway fields show). */
  current: boolean;
}

/**
 * What the provider last said of an attempt that is not final (docs/providers.md, "The checkout"): nothing yet,
 * seen and confirming (Heleket `process`, `confirm_check`), or part paid with `remainingCryptoAmount` still to send.
 */
export interface AttemptProgress {
  status: 'unpaid' | 'confirming' | 'partially_paid';
  remainingCryptoAmount: string | null;
}

/** An attempt as its merchant reads it: what the dashboard's link page lists. */
export interface AttemptSummary {
  n: number;
  orderId: string;
  provider: string;
  method: PaymentMethod;
  networkAsked: string | null;
  gatewayPaymentId: string | null;
  state: AttemptState;
  providerStatus: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a select asks to record before its provider is called. */
export interface AttemptDraft {
  provider: string;
  method: PaymentMethod;
  networkAsked: string | null;
  feeBps: number;
  payerAmount: number;
  merchantCredit: number;
  platformRevenue: number;
}

/** The link's selection an attempt's answer makes: its rate and amounts, its provider's payment. */
export function selectionOf(
  attempt: Pick<Attempt, 'provider' | 'feeBps' | 'payerAmount' | 'merchantCredit' | 'platformRevenue'>,
  payment: ProviderPayment,
): LinkSelection {
  return {
    feeBps: attempt.feeBps,
    payerAmount: attempt.payerAmount,
    merchantCredit: attempt.merchantCredit,
    platformRevenue: attempt.platformRevenue,
    gatewayProvider: attempt.provider,
    gatewayPaymentId: payment.gatewayPaymentId,
    toCurrency: payment.toCurrency,
    network: payment.network,
    depositAddress: payment.depositAddress,
    payerCurrency: payment.payerCurrency,
    payerCryptoAmount: payment.payerCryptoAmount,
    qr: payment.qr,
  };
}

/**
 * How recording a provider's answer ended: the link shows it (with what the provider has said of the attempt so far,
 * as the answer found it), or the link moved on (left pending, or a newer attempt).
 */
export type AnswerOutcome =
  { kind: 'selected'; link: LinkRecord; superseded: Attempt[]; progress: AttemptProgress | null } | { kind: 'not_selected' };

/**
 * Attempts in the links schema. Each write is its own short statement: no provider is ever called while one is open.
 */
export interface AttemptStore {
  /** Attempt n+1 of a pending, not yet due link, committed; null when the link is not (then nothing is written). */
  open(linkId: string, draft: AttemptDraft): Promise<Attempt | null>;
  /**
   * The provider made the payment: atomically (one statement) the attempt records it, the link shows it if the attempt
   * is still its newest and the link still pending and not due, and the link's earlier unpaid attempts become
   * `superseded` (returned, to be canceled at their provider). It commits flushed: the reply that shows the buyer the
   * payment waits for it, and with it for the attempt's unflushed opening (ADR 0043).
   */
  recordAnswer(attempt: Attempt, payment: ProviderPayment): Promise<AnswerOutcome>;
  /** The call failed: the attempt is `unknown` (outcome unknown) or `refused`, with the provider's word. */
  recordFailure(attempt: Attempt, state: 'unknown' | 'refused', providerStatus: string): Promise<void>;
  /** The attempt a provider's payment names: by its order id when the provider echoes it, else the newest with that payment id. */
  findForPayment(provider: string, gatewayPaymentId: string, orderId: string | null): Promise<Attempt | null>;
  /** The attempt that paid a link, if one did. */
  findPaid(linkId: string): Promise<Attempt | null>;
  /** Writes the attempt's final state (after its link's move committed) and the provider's word. */
  markState(attempt: Attempt, state: AttemptState, providerStatus: string | null): Promise<void>;
  /** Records a non-final word of the provider on an attempt still unfinished (a final one changes nothing here). */
  recordProgress(attempt: Attempt, progress: AttemptProgress, providerStatus: string | null): Promise<void>;
  /** The progress of the link's current attempt, or null when it has none or its provider has said nothing yet. */
  currentProgress(linkId: string): Promise<AttemptProgress | null>;
  /** The newest `limit` attempts of a link, oldest first. */
  listForLink(linkId: string, limit: number): Promise<AttemptSummary[]>;
  /** Puts an earlier attempt's amounts and payment back on a pending link (it is the one being paid); null if not pending. */
  restoreOnLink(attempt: Attempt): Promise<LinkRecord | null>;
}
