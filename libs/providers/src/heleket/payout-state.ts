import type { InvoiceFields } from './invoice-state';

/**
 * Heleket's payout as `POST /v1/payout`, `POST /v1/payout/info` and the payout webhook describe it (reference 1.13),
 * mapped to what the platform does with a payout (payouts.md, "How a payout is paid").
 */

/**
 * - `processing`: Heleket has the payout and has not finished it (`process`, `check`, or a word it has not documented:
 *   never read as an end, so the payout is read again rather than given back while Heleket may still pay it);
 * - `paid`: sent (`paid`);
 * - `failed`: Heleket will not send it (`fail`, `cancel`, `system_fail`): the money goes back to the shop.
 */
export type PayoutStatus = 'processing' | 'paid' | 'failed';

/** A payout's state at Heleket. */
export interface PayoutState {
  /** Our payout id read back from `order_id` (hyphens put back), or null when `order_id` is not one of ours. */
  readonly payoutId: string | null;
  /** `order_id` as Heleket echoes it. */
  readonly orderId: string | null;
  /** Heleket's payout `uuid`. */
  readonly providerPayoutId: string;
  readonly status: PayoutStatus;
  /** Heleket's own word (`process`, `paid`, `system_fail`, ...), kept for operators. */
  readonly providerStatus: string;
  /** Why a failed payout failed: Heleket's `fail_reason` when it gives one (Cryptomus's webhook does), else its status word. */
  readonly failureReason: string | null;
  /** The blockchain transaction, when Heleket names one (absent for failed payouts and internal transfers). */
  readonly txid: string | null;
  /** The amount in the coin sent (`payer_amount`) and the coin (`payer_currency`), as Heleket writes them. */
  readonly payerAmount: string | null;
  readonly payerCurrency: string | null;
  /** The destination address, when the message names it (create and info do; the webhook does not). */
  readonly address: string | null;
}

const PAYOUT_STATUSES: Readonly<Record<string, PayoutStatus>> = {
  process: 'processing',
  check: 'processing',
  paid: 'paid',
  fail: 'failed',
  cancel: 'failed',
  system_fail: 'failed',
};

/** Every payout status word the reference documents. */
export const HELEKET_PAYOUT_STATUSES: readonly string[] = Object.keys(PAYOUT_STATUSES);

/** The platform's status of a documented word, or null for a word the reference does not document. */
export const knownPayoutStatusOf = (word: string): PayoutStatus | null =>
  Object.hasOwn(PAYOUT_STATUSES, word) ? (PAYOUT_STATUSES[word] ?? null) : null;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ORDER_ID = /^[0-9a-f]{32}$/i;

/** Heleket takes at most 32 characters as a payout's order id: our payout id without its hyphens, lowercase. */
export function payoutOrderId(payoutId: string): string {
  if (!UUID.test(payoutId)) throw new RangeError('payoutId must be a UUID');
  return payoutId.replace(/-/g, '').toLowerCase();
}

/** Our payout id of an order id we made (hyphens back in), or null for anything else. */
export function payoutIdOf(orderId: string | null): string | null {
  if (orderId === null || !ORDER_ID.test(orderId)) return null;
  const h = orderId.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * A payout's state from its fields (an answer's object or a webhook's map), or null when it names no payout (`uuid`
 * or the status missing). An undocumented status word reads as `processing` (see PayoutStatus).
 */
export function payoutStateOf(fields: InvoiceFields): PayoutState | null {
  const uuid = fields('uuid');
  const word = fields('status') ?? fields('payout_status');
  if (uuid === null || uuid === '' || word === null || word === '') return null;
  const status = knownPayoutStatusOf(word) ?? 'processing';
  const orderId = fields('order_id');
  const reason = fields('fail_reason');
  return {
    payoutId: payoutIdOf(orderId),
    orderId,
    providerPayoutId: uuid,
    status,
    providerStatus: word,
    failureReason: status === 'failed' ? (reason !== null && reason !== '' ? reason : word) : null,
    txid: fields('txid') || null,
    payerAmount: fields('payer_amount'),
    payerCurrency: fields('payer_currency'),
    address: fields('address'),
  };
}
