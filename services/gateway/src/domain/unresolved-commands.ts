import { listUnresolvedQuery, uuid, type ListUnresolvedCommand } from '@pl/contracts';
import { notFound } from '@pl/errors';

const DEFAULT_LIST_LIMIT = 20;

/** The unresolved payments list's query, parsed into the links service's command with its defaults. */
export const listUnresolvedInput = listUnresolvedQuery.transform((q): ListUnresolvedCommand => ({
  shop_id: q.shop_id ?? null,
  status: q.status ?? null,
  reason: q.reason ?? null,
  limit: q.limit ?? DEFAULT_LIST_LIMIT,
  cursor: q.cursor ?? null,
}));

/** A path id that is not a UUID cannot name an unresolved payment, so it is simply not found. */
export function toUnresolvedId(id: unknown): string {
  if (typeof id !== 'string' || !uuid.safeParse(id).success) throw notFound('Unresolved payment not found');
  return id.toLowerCase();
}
