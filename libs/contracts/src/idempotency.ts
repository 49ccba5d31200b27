import { z } from 'zod';
import type { MerchantIdentity } from './identity';
import { paymentLink } from './link';

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * A request's `Idempotency-Key` as it travels to the service that owns the state it changes, so that service,
 * not the gateway's cache, is what makes a retry harmless. The key itself stays at the edge: its SHA-256 is
 * enough to recognise it. `fingerprint` is the SHA-256 of what the request asked for (its canonical body, and
 * for a cancel the link id too); the same key with another fingerprint is a conflict.
 */
export const idempotencyClaim = z.strictObject({
  /** The route within the caller's scope (`merchant-v1-create`, say); see {@link idempotencyScope}. */
  route: z.string().regex(/^[a-z0-9-]{1,64}$/),
  key_sha256: sha256Hex,
  fingerprint: sha256Hex,
});
export type IdempotencyClaim = z.infer<typeof idempotencyClaim>;

/**
 * Who a key belongs to: the merchant, the mode and the route. A cashier key acts for one shop, and two shops of one
 * merchant may well reuse the same key values (their order numbers), so the shop is part of the scope too.
 * The gateway's cache and the links service's records both use it; links derives it from the verified identity.
 */
export function idempotencyScope(identity: MerchantIdentity, route: string): string {
  const who = identity.shop_id !== undefined ? `${identity.merchant_id}:shop-${identity.shop_id}` : identity.merchant_id;
  // Keys are kept per mode (docs/test-mode.md). Live scopes keep the form they had before test mode, so keys
  // taken just before a deploy still answer their retries after it.
  return identity.mode === 'test' ? `test:${who}:${route}` : `${who}:${route}`;
}

/** The answer to a request that carried a key: the link, and whether it is the kept answer of an earlier request. */
export const idempotentLinkReply = z.strictObject({ link: paymentLink, replayed: z.boolean() });
export type IdempotentLinkReply = z.infer<typeof idempotentLinkReply>;
