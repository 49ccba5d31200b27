import { createHmac, timingSafeEqual } from 'node:crypto';
import { JsonNumberText, parseJsonPreservingNumbers } from '@pl/contracts';
import { unauthorized } from '@pl/errors';
import type { CallbackReply, CallbackRequest, CallbackVerdict, PaymentState } from '../provider';
import type { SenderCheck } from '../sender-allowlist';
import { roublesJsonToKopecks } from './amount';
import { paymentStatusOf } from './wire';

/** The header Raiffeisen signs its payment notifications in. */
export const SIGNATURE_HEADER = 'X-Api-Signature-SHA256';

/** The members the signature covers, in the order the bank joins them with `|`. */
const SIGNED_MEMBERS = ['amount', 'sbpMerchantId', 'order', 'paymentStatus', 'transactionDate'] as const;

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/** The bank counts a notification delivered on HTTP 200, whatever the body: the gateway's usual acknowledgement. */
const ACCEPTED: CallbackReply = { status: 200, contentType: 'application/json', body: JSON.stringify({ received: true }) };

/** 401 in the platform's error shape; the bank retries for a day, and nothing changes meanwhile. */
const REFUSED: CallbackReply = (() => {
  const error = unauthorized('Missing or invalid provider signature');
  return { status: 401, contentType: 'application/json', body: JSON.stringify({ error: { code: error.code, message: error.message } }) };
})();

/** The string the bank signs: `amount|sbpMerchantId|order|paymentStatus|transactionDate`. */
const signedString = (values: Readonly<Record<(typeof SIGNED_MEMBERS)[number], string>>): string =>
  SIGNED_MEMBERS.map((name) => values[name]).join('|');

/** hex(HMAC-SHA256(secret key, signed string)), as the bank writes it in {@link SIGNATURE_HEADER}. */
const signString = (secretKey: string, signed: string): string => createHmac('sha256', secretKey).update(signed, 'utf8').digest('hex');

/**
 * A member's value as its text appears in the body: a number keeps the digits the bank wrote (`100.50` stays
 * `100.50`, which JSON.parse would turn into `100.5`); a string is its value. Undefined for anything else.
 */
export function memberText(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value instanceof JsonNumberText) return value.source;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  return undefined;
}

function parseObject(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const body = parseJsonPreservingNumbers(raw.toString('utf8'));
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export interface CallbackKeys {
  readonly secretKey: string;
  readonly sbpMerchantId: string;
  readonly senderAllowed: SenderCheck;
}

const refused = (reason: 'signature' | 'address' | 'malformed'): CallbackVerdict => ({ ok: false, reason, reply: REFUSED });

/**
 * Verifies a payment notification over its raw bytes: the sender's address first, then the signature over the
 * signed members' texts compared in constant time, and only then reads what it says. A notification for another
 * merchant, or with a status or amount the bank does not document, is refused as malformed: it changes nothing.
 */
export function verifyRaiffeisenCallback(request: CallbackRequest, keys: CallbackKeys): CallbackVerdict {
  if (!keys.senderAllowed(request.remoteAddress)) return refused('address');
  const body = parseObject(request.rawBody);
  if (!body) return refused('malformed');
  const values: Partial<Record<(typeof SIGNED_MEMBERS)[number], string>> = {};
  for (const name of SIGNED_MEMBERS) {
    const text = memberText(body, name);
    // The documented types: `amount` a JSON number, the others strings.
    if (text === undefined || (name === 'amount') !== (typeof body[name] !== 'string')) return refused('malformed');
    values[name] = text;
  }
  const signature = request.header(SIGNATURE_HEADER)?.trim();
  if (signature === undefined || !HEX_SHA256.test(signature)) return refused('signature');
  const expected = Buffer.from(signString(keys.secretKey, signedString(values as Record<(typeof SIGNED_MEMBERS)[number], string>)), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return refused('signature');

  const state = paymentStateOf(body, values.amount ?? '');
  if (!state || values.sbpMerchantId !== keys.sbpMerchantId) return refused('malformed');
  return { ok: true, event: { kind: 'payment', state }, reply: ACCEPTED };
}

/**
 * A payment's state from a notification or a `payment-info` answer (the same members). Undefined when `qrId` is
 * missing or the status or the amount is not one the bank documents.
 */
export function paymentStateOf(body: Record<string, unknown>, amountText: string | undefined): PaymentState | undefined {
  const qrId = body.qrId;
  const word = body.paymentStatus;
  if (typeof qrId !== 'string' || qrId === '' || typeof word !== 'string') return undefined;
  const status = paymentStatusOf(word);
  if (status === undefined) return undefined;
  let arrivedKopecks: number | null = null;
  if (status === 'paid') {
    arrivedKopecks = amountText === undefined ? null : roublesJsonToKopecks(amountText);
    if (arrivedKopecks === null) return undefined;
  }
  return {
    provider: 'raiffeisen_sbp',
    gatewayPaymentId: qrId,
    orderId: typeof body.order === 'string' ? body.order : null,
    status,
    providerStatus: word,
    arrivedKopecks,
    arrivedCryptoAmount: null,
    remainingCryptoAmount: null,
    refund: null,
  };
}
