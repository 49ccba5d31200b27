import type { z } from 'zod';
import {
  listDeliveriesQuery,
  selectMethodBody,
  uuid,
  type ListDeliveriesCommand,
  type SelectMethodCommand,
  type SimulatePaymentBody,
  type SimulatePaymentCommand,
} from '@pl/contracts';
import { notFound } from '@pl/errors';
import { toLinkId } from './link-commands';

const DEFAULT_DELIVERIES_LIMIT = 20;

/** The buyer's choice of method, as links.select takes it (without the link id). */
export const selectMethodInput = selectMethodBody.transform((parsed): Omit<SelectMethodCommand, 'id'> => ({
  method: parsed.method,
  network: parsed.method === 'crypto' ? parsed.network : null,
}));

/**
 * The command for links.select: the buyer's choice, parsed first (an invalid body is 400 whatever the path), and
 * the link id from the path (a non-UUID is 404).
 */
export function toSelectCommand(id: unknown, choice: z.output<typeof selectMethodInput>): SelectMethodCommand {
  return { id: toLinkId(id), ...choice };
}

/**
 * The command for links.simulate, in the same order as select: the body first, then the path id (a non-UUID is
 * 404). Whether the link is a test link is for links to say, so a live link and an unknown one answer alike.
 */
export function toSimulateCommand(id: unknown, body: SimulatePaymentBody): SimulatePaymentCommand {
  return { id: toLinkId(id), status: body.status };
}

/** The delivery log's query, parsed into the command for the notifier with its defaults. */
export const listDeliveriesInput = listDeliveriesQuery.transform((q): ListDeliveriesCommand => ({
  payment_link_id: q.payment_link_id?.toLowerCase() ?? null,
  shop_id: q.shop_id ?? null,
  status: q.status ?? null,
  limit: q.limit ?? DEFAULT_DELIVERIES_LIMIT,
  cursor: q.cursor ?? null,
}));

/** A path id that is not a UUID cannot name a delivery. */
export function toDeliveryId(id: unknown): string {
  if (typeof id !== 'string' || !uuid.safeParse(id).success) throw notFound('Webhook delivery not found');
  return id.toLowerCase();
}
