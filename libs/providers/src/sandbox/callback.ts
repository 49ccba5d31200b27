import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseOrThrow, providerCallbackBody, providerRefundCallbackBody } from '@pl/contracts';
import { invalidJson, isAppError, unauthorized } from '@pl/errors';
import { errorReply } from '../callback-reply';
import type { CallbackEvent, CallbackRequest, CallbackVerdict } from '../provider';

/** The header the sandbox signs its callbacks in: hex(HMAC-SHA256(raw body, PROVIDER_SANDBOX_SECRET)). */
const SIGNATURE_HEADER = 'x-provider-signature';
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/** hex(HMAC-SHA256(raw body, secret)), the form the sandbox signs with (its simulator and the tests sign so). */
export const hmacSha256Hex = (secret: string, rawBody: Buffer): string => createHmac('sha256', secret).update(rawBody).digest('hex');

/**
 * Compares a hex signature with the expected HMAC in constant time. The shape check comes first so
 * timingSafeEqual always sees buffers of equal length (a length mismatch would throw).
 */
export function hexSignatureMatches(secret: string, rawBody: Buffer, signature: string | undefined): boolean {
  if (signature === undefined || !HEX_SHA256.test(signature.trim())) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(signature.trim(), 'hex'));
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What every accepted callback is answered, new or repeated. */
const RECEIVED = { status: 200, contentType: 'application/json; charset=utf-8', body: JSON.stringify({ received: true }) } as const;

/**
 * The body of a signed callback. Both kinds arrive at one address, so a body naming `gateway_refund_id` is a
 * refund's (held to its own shape), anything else a payment's (a provider may add fields of its own to those).
 */
function parseEvent(raw: Buffer): CallbackEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(raw));
  } catch {
    throw invalidJson();
  }
  if (isObject(parsed) && 'gateway_refund_id' in parsed) {
    const body = parseOrThrow(providerRefundCallbackBody, parsed, 'Callback body');
    return {
      kind: 'refund',
      state: {
        provider: 'sandbox',
        refundId: null,
        gatewayRefundId: body.gateway_refund_id,
        status: body.status,
        providerStatus: body.status,
        failureReason: body.status === 'failed' ? (body.failure_reason ?? null) : null,
      },
    };
  }
  const body = parseOrThrow(providerCallbackBody, parsed, 'Callback body');
  return {
    kind: 'payment',
    state: {
      provider: 'sandbox',
      gatewayPaymentId: body.gateway_payment_id,
      orderId: null,
      status: body.status,
      providerStatus: body.status,
      // The sandbox says only paid or failed: a paid one paid what its attempt asked.
      arrivedKopecks: null,
      arrivedCryptoAmount: null,
      remainingCryptoAmount: null,
      refund: null,
    },
  };
}

/**
 * The sandbox's callbacks (docs/product-decisions.md, "Checkout and the payment's lifecycle"): the signature over the exact bytes first (401), then the JSON (400) and the
 * shape (400), each refusal answered in the platform's error shape (the gateway judges the media type between them). Any sender address: the
 * sandbox moves no money, and its secret is what a forger lacks.
 */
export function verifySandboxCallback(secret: string, request: CallbackRequest): CallbackVerdict {
  if (!hexSignatureMatches(secret, request.rawBody, request.header(SIGNATURE_HEADER))) {
    return { ok: false, reason: 'signature', reply: errorReply(unauthorized('Missing or invalid provider signature')) };
  }
  try {
    return { ok: true, event: parseEvent(request.rawBody), reply: RECEIVED };
  } catch (e) {
    if (!isAppError(e)) throw e;
    return { ok: false, reason: 'malformed', reply: errorReply(e) };
  }
}
