import { providerFetch } from '../http';
import { ProviderRefusedError, ProviderUnavailableError, type CallContext } from '../provider';
import { phpJsonEncode, type PhpJson } from './php-json';
import { heleketSign } from './signature';

export interface HeleketCredentials {
  /** Base URL without a trailing slash (`https://api.heleket.com`). */
  readonly apiUrl: string;
  readonly merchantId: string;
}

/** Control characters (C0, DEL, C1, line and paragraph separators) never reach a merchant's screen or a log line. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;
const MAX_MESSAGE = 500;

/** A provider's message made safe to show: control characters become spaces, and it is cut to a sane length. */
export function safeMessage(text: string): string {
  const clean = text.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  return clean.length > MAX_MESSAGE ? `${clean.slice(0, MAX_MESSAGE - 1)}…` : clean;
}

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{ "state": 1, "message": ... }` or a 422's `{ "errors": { field: [codes] } }` as one line. */
function refusalMessage(body: Readonly<Record<string, unknown>>): string {
  const parts: string[] = [];
  if (typeof body.message === 'string') parts.push(body.message);
  if (isRecord(body.errors)) {
    for (const [field, codes] of Object.entries(body.errors)) {
      const list = Array.isArray(codes) ? codes.filter((c): c is string => typeof c === 'string') : [];
      parts.push(`${field}: ${list.join(', ') || 'invalid'}`);
    }
  }
  return safeMessage(parts.join('; ')) || 'Refused by Heleket';
}

/**
 * One signed call: `POST {apiUrl}/v1/{path}`, the body written as PHP's json_encode writes it and exactly those bytes
 * signed and sent (a body-less call signs the empty string). Resolves with `result` of `{ state: 0, result }`; a
 * refusal (`state` other than 0, HTTP 422, or 404 with its message) rejects with ProviderRefusedError; whatever else
 * leaves the outcome unknown rejects with ProviderUnavailableError. Nothing here logs the body or the signature.
 */
export async function heleketCall(
  creds: HeleketCredentials,
  key: string,
  operation: string,
  path: string,
  body: Readonly<Record<string, PhpJson>> | null,
  ctx: CallContext,
): Promise<unknown> {
  const text = body === null ? '' : phpJsonEncode(body);
  const answer = await providerFetch(
    'heleket',
    operation,
    {
      method: 'POST',
      url: `${creds.apiUrl}/v1/${path}`,
      headers: { 'content-type': 'application/json', accept: 'application/json', merchant: creds.merchantId, sign: heleketSign(text, key) },
      ...(body === null ? {} : { body: text }),
    },
    ctx,
  );
  const json = answer.json;
  if (!isRecord(json)) throw new ProviderUnavailableError('heleket', operation, 'bad_answer');
  const refusal = answer.status === 422 || answer.status === 404 || (answer.status < 300 && json.state !== 0);
  if (refusal) throw new ProviderRefusedError('heleket', operation, refusalMessage(json), answer.status);
  // 2xx with state 0 is an answer; any other 4xx (a bad signature, a wrong merchant) is our configuration's fault, not
  // the buyer's: reported as unavailable so the circuit and the alerts catch it.
  if (answer.status >= 300) throw new ProviderUnavailableError('heleket', operation, 'bad_answer');
  return json.result;
}

/** Heleket's "not found" refusal of an unknown invoice (`{ "state": 1, "message": "Payment not found" }`). */
export const isNotFound = (e: unknown): boolean =>
  e instanceof ProviderRefusedError && (e.httpStatus === 404 || /not\s*found/i.test(e.providerMessage));
