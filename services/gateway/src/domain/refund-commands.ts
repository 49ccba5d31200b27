import { createRefundBody, listRefundsQuery, uuid, type CreateRefundCommand, type ListRefundsCommand } from '@pl/contracts';
import { notFound } from '@pl/errors';

const DEFAULT_LIST_LIMIT = 20;

/** The refund body, parsed into the links service's command (without the link id, which the path names). */
export const createRefundInput = createRefundBody.transform((parsed): Omit<CreateRefundCommand, 'payment_link_id' | 'idempotency'> => ({
  amount_kopecks: parsed.amount ?? null,
  reason: parsed.reason ?? null,
  destination: parsed.destination ?? null,
}));

/** The refund list's query, parsed into the links service's command with its defaults. */
export const listRefundsInput = listRefundsQuery.transform((q): ListRefundsCommand => ({
  payment_link_id: q.payment_link_id?.toLowerCase() ?? null,
  shop_id: q.shop_id ?? null,
  status: q.status ?? null,
  limit: q.limit ?? DEFAULT_LIST_LIMIT,
  cursor: q.cursor ?? null,
}));

/** A path id that is not a UUID cannot name a refund, so it is simply not found. */
export function toRefundId(id: unknown): string {
  if (typeof id !== 'string' || !uuid.safeParse(id).success) throw notFound('Refund not found');
  return id.toLowerCase();
}
