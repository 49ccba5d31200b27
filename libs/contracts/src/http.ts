import { z } from 'zod';
import {
  amountInput,
  CURSOR_MAX_LENGTH,
  linkDescription,
  expiresInMinutes,
  linkStatus,
  linkOrderId,
  PAGE_LIMIT_MAX,
  positiveId,
  returnUrl,
} from './fields';
import { identifierText } from './text';

/**
 * Body of the three create routes. Which routes need `shop_id` is decided by the route, not here. The optional
 * texts follow the one text rule (text.ts): left out or `null` when there is none, never `""`.
 */
export const createLinkBody = z.strictObject({
  shop_id: positiveId.optional(),
  amount: amountInput,
  currency: z.literal('RUB').optional(),
  order_id: linkOrderId.nullable().optional(),
  description: linkDescription.nullable().optional(),
  expires_in_minutes: expiresInMinutes.optional(),
  /** Where the checkout page sends the buyer back once the link is over (fields.ts, returnUrlProblem). */
  return_url: returnUrl.nullable().optional(),
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
  limit: intText(1, PAGE_LIMIT_MAX).optional(),
  cursor: identifierText(CURSOR_MAX_LENGTH).optional(),
  status: linkStatus.optional(),
  shop_id: intText(1, Number.MAX_SAFE_INTEGER).optional(),
  order_id: linkOrderId.optional(),
});
export type ListLinksQuery = z.output<typeof listLinksQuery>;

export const loginResponse = z.object({ session_token: z.string(), expires_at: z.string() });
