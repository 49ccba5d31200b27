import {
  cancelLinkBody,
  listDeliveriesQuery,
  providerCallbackBody,
  selectMethodBody,
  uuid,
  type ListDeliveriesCommand,
  type ProviderCallbackBody,
  type SelectMethodCommand,
} from '@pl/contracts';
import { invalidJson, notFound } from '@pl/errors';
import { toLinkId } from './link-commands';
import { parseOrThrow } from './validation';

const DEFAULT_DELIVERIES_LIMIT = 20;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The buyer's choice for links.select; the link id comes from the path (a non-UUID is 404). */
export function toSelectCommand(id: unknown, body: unknown): SelectMethodCommand {
  const parsed = parseOrThrow(selectMethodBody, body, 'Request body');
  return { id: toLinkId(id), method: parsed.method, network: parsed.method === 'crypto' ? parsed.network : null };
}

/**
 * A provider callback body, parsed from the bytes whose signature was checked. Providers may add
 * fields of their own, so unknown fields are ignored rather than refused.
 */
export function parseCallbackBody(raw: Buffer): ProviderCallbackBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(raw));
  } catch {
    throw invalidJson();
  }
  return parseOrThrow(providerCallbackBody, parsed, 'Callback body');
}

export function toListDeliveriesCommand(query: unknown): ListDeliveriesCommand {
  const q = parseOrThrow(listDeliveriesQuery, query, 'Query');
  return {
    payment_link_id: q.payment_link_id?.toLowerCase() ?? null,
    limit: q.limit ?? DEFAULT_DELIVERIES_LIMIT,
    cursor: q.cursor ?? null,
  };
}

/** Resend takes an empty JSON object (or no body) and nothing else, like cancel. */
export function checkResendBody(body: unknown): void {
  parseOrThrow(cancelLinkBody, body, 'Request body');
}

/** A path id that is not a UUID cannot name a delivery. */
export function toDeliveryId(id: unknown): string {
  if (typeof id !== 'string' || !uuid.safeParse(id).success) throw notFound('Webhook delivery not found');
  return id.toLowerCase();
}
