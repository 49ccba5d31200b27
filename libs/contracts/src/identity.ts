import { z } from 'zod';
import { positiveId, uuid } from './fields';

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
  }),
  z.object({ kind: z.literal('service'), service: z.string().min(1) }),
]);
export type Identity = z.infer<typeof identityClaims>;
export type MerchantIdentity = Extract<Identity, { kind: 'merchant' }>;
