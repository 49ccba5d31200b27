import { cancelLinkBody, createLinkBody, listLinksQuery, uuid, type CreateLinkCommand, type ListLinksCommand } from '@pl/contracts';
import { notFound } from '@pl/errors';
import { parseOrThrow, validationError } from './validation';

const DEFAULT_EXPIRES_IN_MINUTES = 1440;
const DEFAULT_LIST_LIMIT = 20;

/**
 * The create body as the links service takes it. `requireShopId` is true for account keys and
 * sessions; cashier keys carry their shop, so a body shop_id is optional there (links checks it).
 */
export function toCreateLinkCommand(body: unknown, options: { requireShopId: boolean }): CreateLinkCommand {
  const parsed = parseOrThrow(createLinkBody, body, 'Request body');
  if (options.requireShopId && parsed.shop_id === undefined) {
    throw validationError([{ field: 'shop_id', code: 'invalid_type', message: 'shop_id is required' }], 'Request body');
  }
  const command: CreateLinkCommand = {
    amount_kopecks: parsed.amount,
    order_id: parsed.order_id ?? null,
    description: parsed.description ?? null,
    expires_in_minutes: parsed.expires_in_minutes ?? DEFAULT_EXPIRES_IN_MINUTES,
  };
  if (parsed.shop_id !== undefined) command.shop_id = parsed.shop_id;
  return command;
}

/** Cancel takes an empty JSON object and nothing else. */
export function checkCancelBody(body: unknown): void {
  parseOrThrow(cancelLinkBody, body, 'Request body');
}

export function toListLinksCommand(query: unknown): ListLinksCommand {
  const q = parseOrThrow(listLinksQuery, query, 'Query');
  return {
    limit: q.limit ?? DEFAULT_LIST_LIMIT,
    cursor: q.cursor ?? null,
    status: q.status ?? null,
    shop_id: q.shop_id ?? null,
    order_id: q.order_id ?? null,
  };
}

/** A path id that is not a UUID cannot name a link, so it is simply not found. */
export function toLinkId(id: unknown): string {
  if (typeof id !== 'string' || !uuid.safeParse(id).success) throw notFound('Payment link not found');
  return id.toLowerCase();
}
