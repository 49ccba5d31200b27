import { listEventsQuery, PUBLIC_EVENT_ID, type ListEventsCommand } from '@pl/contracts';
import { notFound } from '@pl/errors';

const DEFAULT_LIST_LIMIT = 20;

/** The events query, parsed into the notifier's command with its defaults. */
export const listEventsInput = listEventsQuery.transform((q): ListEventsCommand => ({
  type: q.type ?? null,
  shop_id: q.shop_id ?? null,
  payment_link_id: q.payment_link_id?.toLowerCase() ?? null,
  limit: q.limit ?? DEFAULT_LIST_LIMIT,
  cursor: q.cursor ?? null,
}));

/** A path id not of the `evt_<uuid>` form cannot name an event, so it is simply not found. */
export function toEventId(id: unknown): string {
  if (typeof id !== 'string' || !PUBLIC_EVENT_ID.test(id.toLowerCase())) throw notFound('Event not found');
  return id.toLowerCase();
}
