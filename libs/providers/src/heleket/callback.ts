import { BlockList, isIP } from 'node:net';
import { invalidJson, unauthorized, validationFailed, type AppError } from '@pl/errors';
import type { CallbackRefusal, CallbackReply, CallbackRequest, CallbackVerdict } from '../provider';
import { fieldsOfMap, paymentStateOf, refundStateOf, statusWordOf } from './invoice-state';
import { phpJsonDecode, phpJsonEncode, utf8Text, type PhpJson } from './php-json';
import { signatureMatches } from './signature';

/** What a verified callback is answered. */
export const CALLBACK_RECEIVED: CallbackReply = { status: 200, contentType: 'application/json', body: '{"received":true}' };

/** The platform's error shape (`{ error: { code, message } }`, as the gateway writes every error). */
function errorReply(error: AppError): CallbackReply {
  const wire = error.toWire();
  const body = { error: { code: wire.code, message: wire.message, ...(wire.details === undefined ? {} : { details: wire.details }) } };
  return { status: error.httpStatus, contentType: 'application/json', body: JSON.stringify(body) };
}

const NOT_VERIFIED = errorReply(unauthorized('Missing or invalid provider signature'));

/**
 * The addresses a callback may come from (`HELEKET_CALLBACK_IPS`: addresses or CIDRs). Empty allows any. An entry
 * that is neither throws, so a typo stops the service at start instead of refusing every callback.
 */
export function callbackAllowlist(entries: readonly string[]): (address: string) => boolean {
  if (entries.length === 0) return () => true;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix, ...rest] = entry.trim().split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? null : Number(prefix);
    const maxBits = family === 6 ? 128 : 32;
    if (
      family === 0 ||
      rest.length > 0 ||
      (bits !== null && !(Number.isInteger(bits) && bits >= 0 && bits <= maxBits && /^\d+$/.test(prefix ?? '')))
    ) {
      throw new Error(`HELEKET_CALLBACK_IPS: "${entry}" is not an address or a CIDR`);
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (bits === null) list.addAddress(address, type);
    else list.addSubnet(address, bits, type);
  }
  return (remote) => {
    // A dual-stack socket reports an IPv4 sender as ::ffff:a.b.c.d.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remote);
    const address = mapped?.[1] ?? remote;
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}

/**
 * What Heleket signed: the body without its `sign` member as `json_encode($data, JSON_UNESCAPED_UNICODE)` writes it
 * after `json_decode($body, true)` (slashes escaped, non-ASCII as is), which is how Heleket's own SDK verifies.
 */
function signedTextOf(body: ReadonlyMap<string, PhpJson>): string {
  const rest = new Map(body);
  rest.delete('sign');
  return phpJsonEncode(rest, { unescapedUnicode: true });
}

/** A callback's body whose sender and signature were checked, or the refusal to answer. */
export type SignedCallback =
  | { readonly ok: true; readonly body: ReadonlyMap<string, PhpJson> }
  | { readonly ok: false; readonly reason: CallbackRefusal; readonly reply: CallbackReply };

/**
 * The checks every Heleket webhook passes, payment or payout alike (docs/providers.md, "Callbacks"): the sender's address
 * is allowed, and the body's own `sign` is md5(base64(signed text) + `key`), compared in constant time. The key is the
 * payment key for payment webhooks and the payout key for payout webhooks. Never throws.
 */
export function readSignedCallback(request: CallbackRequest, key: string, allowed: (address: string) => boolean): SignedCallback {
  try {
    return readSigned(request, key, allowed);
  } catch {
    // Whatever input gets past the checks below into an exception is still just a callback refused.
    return { ok: false, reason: 'malformed', reply: errorReply(invalidJson('The callback body cannot be read')) };
  }
}

function readSigned(request: CallbackRequest, key: string, allowed: (address: string) => boolean): SignedCallback {
  if (!allowed(request.remoteAddress)) return { ok: false, reason: 'address', reply: NOT_VERIFIED };
  let body: PhpJson;
  try {
    body = phpJsonDecode(utf8Text(request.rawBody));
  } catch {
    return { ok: false, reason: 'malformed', reply: errorReply(invalidJson('The callback body is not JSON')) };
  }
  if (!(body instanceof Map)) return { ok: false, reason: 'malformed', reply: errorReply(invalidJson('The callback body is not a JSON object')) };
  const map = body as ReadonlyMap<string, PhpJson>;
  const sign = map.get('sign');
  let signedText: string | null = null;
  try {
    signedText = signedTextOf(map);
  } catch {
    // A body PHP itself could not re-encode (a float beyond range): nothing can have been signed over it.
  }
  if (typeof sign !== 'string' || signedText === null || !signatureMatches(signedText, key, sign)) {
    return { ok: false, reason: 'signature', reply: NOT_VERIFIED };
  }
  return { ok: true, body: map };
}

/** A verified webhook Heleket signed but the platform cannot read: 400, so Heleket keeps it for a retry. */
export function unknownCallbackReply(message: string): CallbackReply {
  const issue = { field: 'status', code: 'custom', message };
  return errorReply(validationFailed('Unknown Heleket callback', [issue]));
}

/**
 * Verifies and reads a Heleket payment callback (docs/product-decisions.md, "Callback") with the payment key. Never throws.
 */
export function verifyHeleketCallback(request: CallbackRequest, paymentKey: string, allowed: (address: string) => boolean): CallbackVerdict {
  const signed = readSignedCallback(request, paymentKey, allowed);
  if (!signed.ok) return signed;
  try {
    return paymentVerdict(signed.body);
  } catch {
    return { ok: false, reason: 'malformed', reply: errorReply(invalidJson('The callback body cannot be read')) };
  }
}

function paymentVerdict(map: ReadonlyMap<string, PhpJson>): CallbackVerdict {
  const fields = fieldsOfMap(map);
  const uuid = fields('uuid');
  const word = statusWordOf(fields);
  const refund = uuid === null || word === null ? null : refundStateOf(uuid, word);
  if (fields('type') === 'payment' && refund !== null) return { ok: true, event: { kind: 'refund', state: refund }, reply: CALLBACK_RECEIVED };
  const state = fields('type') === 'payment' ? paymentStateOf(fields) : null;
  if (state === null) {
    // Signed by Heleket but not an invoice callback the platform knows: refused with 400 so Heleket keeps it for a retry.
    return { ok: false, reason: 'malformed', reply: unknownCallbackReply('Not a payment callback with a known status') };
  }
  return { ok: true, event: { kind: 'payment', state }, reply: CALLBACK_RECEIVED };
}
