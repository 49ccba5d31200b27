import { BlockList, isIP } from 'node:net';
import { invalidJson, unauthorized, validationFailed, type AppError } from '@pl/errors';
import type { CallbackReply, CallbackRequest, CallbackVerdict } from '../provider';
import { fieldsOfMap, paymentStateOf, refundStateOf, statusWordOf } from './invoice-state';
import { phpJsonDecode, phpJsonEncode, utf8Text, type PhpJson } from './php-json';
import { signatureMatches } from './signature';

const RECEIVED: CallbackReply = { status: 200, contentType: 'application/json', body: '{"received":true}' };

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

/**
 * Verifies and reads a Heleket callback (docs/product-decisions.md, "Callback"): the sender's address is allowed, and the
 * body's own `sign` is md5(base64(signed text) + payment key), compared in constant time. Never throws.
 */
export function verifyHeleketCallback(request: CallbackRequest, paymentKey: string, allowed: (address: string) => boolean): CallbackVerdict {
  try {
    return verify(request, paymentKey, allowed);
  } catch {
    // Whatever input gets past the checks below into an exception is still just a callback refused.
    return { ok: false, reason: 'malformed', reply: errorReply(invalidJson('The callback body cannot be read')) };
  }
}

function verify(request: CallbackRequest, paymentKey: string, allowed: (address: string) => boolean): CallbackVerdict {
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
  if (typeof sign !== 'string' || signedText === null || !signatureMatches(signedText, paymentKey, sign)) {
    return { ok: false, reason: 'signature', reply: NOT_VERIFIED };
  }
  const fields = fieldsOfMap(map);
  const uuid = fields('uuid');
  const word = statusWordOf(fields);
  const refund = uuid === null || word === null ? null : refundStateOf(uuid, word);
  if (fields('type') === 'payment' && refund !== null) return { ok: true, event: { kind: 'refund', state: refund }, reply: RECEIVED };
  const state = fields('type') === 'payment' ? paymentStateOf(fields) : null;
  if (state === null) {
    // Signed by Heleket but not an invoice callback the platform knows: refused with 400 so Heleket keeps it for a retry.
    const issue = { field: 'status', code: 'custom', message: 'Not a payment callback with a known status' };
    return { ok: false, reason: 'malformed', reply: errorReply(validationFailed('Unknown Heleket callback', [issue])) };
  }
  return { ok: true, event: { kind: 'payment', state }, reply: RECEIVED };
}
