import { formatMoscow } from '@pl/contracts';
import type { CreatePaymentRequest, CreateRefundRequest, PaymentStatus, RefundStatus } from '../provider';
import { kopecksToRoublesJson } from './amount';

/**
 * Raiffeisen SBP QR API on the wire: request bodies, the provider's words and their meaning
 * (the provider's published API (docs/providers.md), Raiffeisen's sbp.yaml). Pure, so every rule is tested from the documented examples.
 */

/** `paymentDetails` of a QR: what the payer's bank app shows as the purpose (sbp.yaml: at most 185). */
const QR_PAYMENT_DETAILS_MAX = 185;
/** `paymentDetails` of a refund: at most 140 since the 09.09.2021 changelog. */
const REFUND_PAYMENT_DETAILS_MAX = 140;

/** Control and format characters (line breaks, bidi overrides, zero-width marks): never sent to a bank or shown. */
const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029]+/gu;

/** The text with invisible characters turned into spaces and runs of spaces collapsed. */
const plainText = (text: string): string => text.replace(INVISIBLE, ' ').replace(/\s+/g, ' ').trim();

/** At most `max` UTF-16 units (what Java, and so the bank, counts), never splitting a surrogate pair. */
export function cutTo(text: string, max: number): string {
  let out = '';
  for (const ch of text) {
    if (out.length + ch.length > max) break;
    out += ch;
  }
  return out.trimEnd();
}

/** The purpose shown to the payer: the link's description cut to 185, or `Order <order id>` without one. */
export function qrPaymentDetails(request: Pick<CreatePaymentRequest, 'description' | 'merchantOrderId' | 'orderId'>): string {
  const description = cutTo(plainText(request.description ?? ''), QR_PAYMENT_DETAILS_MAX);
  if (description) return description;
  return cutTo(`Order ${plainText(request.merchantOrderId ?? '') || request.orderId}`, QR_PAYMENT_DETAILS_MAX);
}

/** The body of `POST /sbp/v1/qr/register` for one attempt: a dynamic QR for exactly what the buyer owes. */
export function registerQrBody(request: CreatePaymentRequest, sbpMerchantId: string): string {
  return JSON.stringify({
    qrType: 'QRDynamic',
    order: request.orderId,
    sbpMerchantId,
    // The shortest decimal text of kopecks/100 round-trips through a JS number, so this writes `1259.19`, `100.5`.
    amount: Number(kopecksToRoublesJson(request.payerAmountKopecks)),
    currency: 'RUB',
    // The bank's examples write Moscow time to the second: `2023-07-22T09:14:38+03:00`.
    qrExpirationDate: formatMoscow(request.expiresAt),
    paymentDetails: qrPaymentDetails(request),
  });
}

/** The body of `POST /sbp/v1/refund`: our refund id as `refundId`, so a repeated request cannot refund twice. */
export function refundBody(request: CreateRefundRequest): string {
  const details =
    cutTo(plainText(request.description ?? ''), REFUND_PAYMENT_DETAILS_MAX) ||
    cutTo(`Refund of order ${request.orderId}`, REFUND_PAYMENT_DETAILS_MAX);
  return JSON.stringify({
    amount: Number(kopecksToRoublesJson(request.amountKopecks)),
    order: request.orderId,
    refundId: request.refundId,
    paymentDetails: details,
  });
}

/**
 * A payment's `paymentStatus` (callback and payment-info). `SUCCESS` is `paid` here: whether it paid less or more
 * than the attempt asked is judged against the attempt by {@link judgeArrivedAmount}, which the bank's callback
 * cannot carry. Undefined for a word the bank does not document.
 */
export function paymentStatusOf(word: string): PaymentStatus | undefined {
  switch (word) {
    case 'SUCCESS':
      return 'paid';
    case 'DECLINED':
      return 'declined';
    case 'IN_PROGRESS':
    case 'NO_INFO':
      return 'unpaid';
    default:
      return undefined;
  }
}

/** A refund's `refundStatus`; undefined for a word the bank does not document. */
export function refundStatusOf(word: string): RefundStatus | undefined {
  switch (word) {
    case 'IN_PROGRESS':
      return 'pending';
    case 'COMPLETED':
      return 'succeeded';
    case 'DECLINED':
      return 'failed';
    default:
      return undefined;
  }
}

/** Longest provider message passed on to a merchant: enough for any documented one, not a page of HTML. */
const MESSAGE_MAX = 300;

/**
 * The provider's message of a refusal, safe to show (no control or format characters, bounded), from its
 * documented error body `{ code, message }`; the code or the HTTP status when it has none.
 */
export function refusalMessage(json: unknown, status: number): string {
  const body = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
  const pick = (v: unknown): string => (typeof v === 'string' ? cutTo(plainText(v), MESSAGE_MAX) : '');
  return pick(body.message) || pick(body.code) || `HTTP ${status}`;
}
