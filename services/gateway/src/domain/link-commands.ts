import { z } from 'zod';
import { createLinkBody, listLinksQuery, uuid, type CreateLinkBody, type CreateLinkCommand, type ListLinksCommand } from '@pl/contracts';
import { notFound } from '@pl/errors';

const DEFAULT_EXPIRES_IN_MINUTES = 1440;
const DEFAULT_LIST_LIMIT = 20;

const toCreateLinkCommand = (parsed: CreateLinkBody): CreateLinkCommand => {
  const command: CreateLinkCommand = {
    amount_kopecks: parsed.amount,
    order_id: parsed.order_id ?? null,
    description: parsed.description ?? null,
    expires_in_minutes: parsed.expires_in_minutes ?? DEFAULT_EXPIRES_IN_MINUTES,
  };
  if (parsed.shop_id !== undefined) command.shop_id = parsed.shop_id;
  return command;
};

/** A transform runs only on a body that passed its schema, so a missing shop_id is named only then. */
const createLinkInputs = {
  shopIdOptional: createLinkBody.transform(toCreateLinkCommand),
  shopIdRequired: createLinkBody.transform((parsed, ctx) => {
    if (parsed.shop_id === undefined) {
      ctx.issues.push({ code: 'invalid_type', expected: 'number', input: undefined, path: ['shop_id'], message: 'shop_id is required' });
      return z.NEVER;
    }
    return toCreateLinkCommand(parsed);
  }),
};

/**
 * The create body, parsed into the command the links service takes. `requireShopId` is true for account keys
 * and sessions; cashier keys carry their shop, so a body shop_id is optional there (links checks it).
 */
export const createLinkInput = (options: { requireShopId: boolean }) =>
  options.requireShopId ? createLinkInputs.shopIdRequired : createLinkInputs.shopIdOptional;

/** The list query, parsed into the links service's command with its defaults. */
export const listLinksInput = listLinksQuery.transform((q): ListLinksCommand => ({
  limit: q.limit ?? DEFAULT_LIST_LIMIT,
  cursor: q.cursor ?? null,
  status: q.status ?? null,
  shop_id: q.shop_id ?? null,
  order_id: q.order_id ?? null,
}));

/** A path id that is not a UUID cannot name a link, so it is simply not found. */
export function toLinkId(id: unknown): string {
  if (typeof id !== 'string' || !uuid.safeParse(id).success) throw notFound('Payment link not found');
  return id.toLowerCase();
}
