import { z } from 'zod';
import { amountInput, linkStatus, positiveId } from './fields';
import { freeText, identifierText } from './text';

/**
 * Body of the three create routes. Which routes need `shop_id` is decided by the route, not here. The optional
 * texts follow the one text rule (text.ts): left out or `null` when there is none, never `""`.
 */
export const createLinkBody = z.strictObject({
  shop_id: positiveId.optional(),
  amount: amountInput,
  currency: z.literal('RUB').optional(),
  order_id: identifierText(128).nullable().optional(),
  description: freeText(1024).nullable().optional(),
  expires_in_minutes: z.number().int().min(1).max(43200).optional(),
});
export type CreateLinkBody = z.output<typeof createLinkBody>;

/** Cancel takes an empty JSON object. */
export const cancelLinkBody = z.strictObject({});

export const loginBody = z.strictObject({
  email: identifierText(254, 3),
  password: identifierText(1024),
});
export type LoginBody = z.infer<typeof loginBody>;

const intText = (min: number, max: number) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,15})$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/** Query string of the list routes; every value arrives as a string. */
export const listLinksQuery = z.strictObject({
  limit: intText(1, 100).optional(),
  cursor: identifierText(512).optional(),
  status: linkStatus.optional(),
  shop_id: intText(1, Number.MAX_SAFE_INTEGER).optional(),
  order_id: identifierText(128).optional(),
});
export type ListLinksQuery = z.output<typeof listLinksQuery>;

export const loginResponse = z.object({ session_token: z.string(), expires_at: z.string() });
