import { providerRefundCallbackBody, type ProviderCallbackBody, type ProviderRefundCallbackBody } from '@pl/contracts';
import { invalidJson } from '@pl/errors';
import { parseCallbackBody } from './checkout-commands';
import { parseOrThrow } from './validation';

/** What a provider's callback is about: a payment's verdict, or (naming `gateway_refund_id`) a refund's. */
export type ProviderCallback = { kind: 'payment'; body: ProviderCallbackBody } | { kind: 'refund'; body: ProviderRefundCallbackBody };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A callback body, parsed from the bytes whose signature was checked. Both kinds arrive at one address, so a body
 * naming `gateway_refund_id` is a refund's (held to its own shape), and anything else is judged as a payment's.
 */
export function parseProviderCallback(raw: Buffer): ProviderCallback {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(raw));
  } catch {
    throw invalidJson();
  }
  if (isObject(parsed) && 'gateway_refund_id' in parsed) {
    return { kind: 'refund', body: parseOrThrow(providerRefundCallbackBody, parsed, 'Callback body') };
  }
  return { kind: 'payment', body: parseCallbackBody(raw) };
}
