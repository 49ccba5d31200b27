import { z } from 'zod';
import { positiveId, uuid } from './fields';
import { mode } from './mode';

/**
 * Who is calling, as the gateway vouches for it in the short-lived JWT that rides on every NATS
 * request. `merchant` identities act for one merchant; `service` identities are the platform's own.
 */
export const identityClaims = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('merchant'),
    merchant_id: uuid,
    auth: z.enum(['api_key', 'session', 'cashier']),
    /** Set for cashier keys: the only shop the caller may act on. */
    shop_id: positiveId.optional(),
    email_confirmed: z.boolean(),
    /** The world the caller acts in: every link, delivery, idempotency key and budget it touches is of this mode. */
    mode,
  }),
  z.object({ kind: z.literal('service'), service: z.string().min(1) }),
]);
export type Identity = z.infer<typeof identityClaims>;
export type MerchantIdentity = Extract<Identity, { kind: 'merchant' }>;

/**
 * Why `identity` may not read a shop, or null when it may: a merchant reads only its own shops (a cashier
 * identity only its one shop); platform services read any. The shops service answers by this rule, and
 * the links service applies it to the shop copies it shares between callers.
 */
export function shopAccessDenial(identity: Identity, shopId: number, shopMerchantId: string): string | null {
  if (identity.kind !== 'merchant') return null;
  if (shopMerchantId !== identity.merchant_id) return 'Shop belongs to another merchant';
  if (identity.shop_id !== undefined && identity.shop_id !== shopId) return 'The cashier key is for another shop';
  return null;
}
