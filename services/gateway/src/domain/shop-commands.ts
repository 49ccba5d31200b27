import {
  createShopBody,
  listShopsQuery,
  OVERLAP_MINUTES_DEFAULT,
  positiveId,
  rotateSecretBody,
  type CreateShopCommand,
  type ListShopsCommand,
} from '@pl/contracts';
import { notFound } from '@pl/errors';

const DEFAULT_LIST_LIMIT = 20;

/** The shop list's query, parsed into the shops service's command with its defaults (as the link list's). */
export const listShopsInput = listShopsQuery.transform((q): ListShopsCommand => ({ limit: q.limit ?? DEFAULT_LIST_LIMIT, cursor: q.cursor ?? null }));

/** A new shop: no webhook address and the merchant pays the fee unless the body says otherwise. */
export const createShopInput = createShopBody.transform((b): CreateShopCommand => ({
  name: b.name,
  webhook_url: b.webhook_url ?? null,
  fee_payer: b.fee_payer ?? 'merchant',
}));

/** A rotation keeps the previous secret signing for a day unless the body says otherwise. */
export const rotateSecretInput = rotateSecretBody.transform((b) => ({ overlap_minutes: b.overlap_minutes ?? OVERLAP_MINUTES_DEFAULT }));

/** A path id that is not a positive integer (no sign, no leading zero, within 2^53) cannot name a shop: 404. */
export function toShopId(id: unknown): number {
  if (typeof id === 'string' && /^[1-9][0-9]{0,15}$/.test(id)) {
    const parsed = positiveId.safeParse(Number(id));
    if (parsed.success) return parsed.data;
  }
  throw notFound('Shop not found');
}
