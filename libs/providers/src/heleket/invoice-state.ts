import { formatDecimal, isZero, parseDecimal, subtractDecimal, valueAtInvoiceRate, type Decimal } from '../decimal';
import type { PaymentState, PaymentStatus, RefundState, RefundStatus } from '../provider';
import { PhpNumber } from './php-json';

/**
 * Heleket's invoice as its callbacks and `payment/info` describe it (the provider's published API (docs/providers.md)), mapped to the
 * platform's payment and refund states (docs/product-decisions.md, "Statuses").
 */

const PAYMENT_STATUSES: Readonly<Record<string, PaymentStatus>> = {
  check: 'unpaid',
  process: 'confirming',
  confirm_check: 'confirming',
  wrong_amount_waiting: 'partially_paid',
  paid: 'paid',
  paid_over: 'paid_over',
  wrong_amount: 'underpaid',
  cancel: 'ended_unpaid',
  fail: 'failed',
  system_fail: 'failed',
  locked: 'locked',
};

const REFUND_STATUSES: Readonly<Record<string, RefundStatus>> = {
  refund_process: 'pending',
  refund_paid: 'succeeded',
  refund_fail: 'failed',
};

/** Every status word Heleket documents for an invoice. */
export const HELEKET_STATUSES: readonly string[] = [...Object.keys(PAYMENT_STATUSES), ...Object.keys(REFUND_STATUSES)];

const paymentStatusOf = (word: string): PaymentStatus | null => (Object.hasOwn(PAYMENT_STATUSES, word) ? (PAYMENT_STATUSES[word] ?? null) : null);
const refundStatusOf = (word: string): RefundStatus | null => (Object.hasOwn(REFUND_STATUSES, word) ? (REFUND_STATUSES[word] ?? null) : null);

/** One field of a decoded invoice (a callback's ordered map or an answer's object) as text, or null. */
export type InvoiceFields = (key: string) => string | null;

function asText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value instanceof PhpNumber) return value.text;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

export const fieldsOfMap =
  (map: ReadonlyMap<string, unknown>): InvoiceFields =>
  (key) =>
    asText(map.get(key));

export const fieldsOfObject =
  (obj: Readonly<Record<string, unknown>>): InvoiceFields =>
  (key) =>
    Object.hasOwn(obj, key) ? asText(obj[key]) : null;

/** The status word: callbacks say `status`, `payment/info` says `payment_status` (and `status`, the same). */
export const statusWordOf = (fields: InvoiceFields): string | null => fields('payment_status') ?? fields('status');

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const positive = (d: Decimal | null): Decimal | null => (d !== null && !isZero(d) ? d : null);
const decimalField = (fields: InvoiceFields, key: string): Decimal | null => {
  const text = fields(key);
  return text === null ? null : parseDecimal(text);
};

/**
 * After a refund Heleket reports only the refund's status: what the payment was is read from what arrived against
 * what was asked (a refund needs money that arrived).
 */
function paidStatusFromAmounts(asked: Decimal | null, arrived: Decimal | null): PaymentStatus {
  if (asked === null || arrived === null) return 'paid';
  const over = subtractDecimal(arrived, asked);
  if (over === null) return 'underpaid';
  return isZero(over) ? 'paid' : 'paid_over';
}

export function refundStateOf(uuid: string, word: string): RefundState | null {
  const status = refundStatusOf(word);
  return status === null ? null : { provider: 'heleket', refundId: null, gatewayRefundId: uuid, status, providerStatus: word };
}

/** The payment's state, or null when the invoice names no known status or lacks its uuid. */
export function paymentStateOf(fields: InvoiceFields): PaymentState | null {
  const uuid = fields('uuid');
  const word = statusWordOf(fields);
  if (uuid === null || word === null) return null;
  const asked = positive(decimalField(fields, 'payer_amount'));
  const arrived = positive(decimalField(fields, 'payment_amount'));
  const invoice = decimalField(fields, 'amount');
  const refund = refundStateOf(uuid, word);
  const status = refund === null ? paymentStatusOf(word) : paidStatusFromAmounts(asked, arrived);
  if (status === null) return null;
  const arrivedKopecks = arrived !== null && asked !== null && invoice !== null ? valueAtInvoiceRate(invoice, asked, arrived) : null;
  const remaining = status === 'partially_paid' && asked !== null ? subtractDecimal(asked, arrived ?? { units: 0n, scale: 0 }) : null;
  return {
    provider: 'heleket',
    gatewayPaymentId: uuid,
    orderId: fields('order_id'),
    status,
    providerStatus: word,
    arrivedKopecks: arrivedKopecks === null || arrivedKopecks > MAX_SAFE ? null : Number(arrivedKopecks),
    arrivedCryptoAmount: arrived === null ? null : (fields('payment_amount') ?? null),
    remainingCryptoAmount: remaining === null ? null : formatDecimal(remaining),
    refund,
  };
}
