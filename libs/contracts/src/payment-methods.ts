import { z } from 'zod';
import { CRYPTO_NETWORKS, cryptoNetwork, type CryptoNetwork } from './checkout';

/**
 * The payment methods a shop takes (docs/providers.md, "A shop's methods"): SBP on or off, and the crypto networks it
 * accepts. Russian residents may not take crypto for goods, so each shop chooses; the checkout offers only these.
 */
export const paymentMethods = z.object({
  sbp: z.boolean(),
  crypto_networks: z.array(cryptoNetwork),
});
export type PaymentMethods = z.infer<typeof paymentMethods>;

/** What every shop takes unless it says otherwise: SBP and all six networks (the platform's behaviour before the choice). */
export const DEFAULT_PAYMENT_METHODS: PaymentMethods = { sbp: true, crypto_networks: [...CRYPTO_NETWORKS] };

const networkList = z
  .array(cryptoNetwork)
  .max(CRYPTO_NETWORKS.length)
  .refine((networks) => new Set(networks).size === networks.length, { message: 'must not repeat a network' });

/**
 * A change of a shop's methods, merged into what the shop has (a member left out stays). Whether one method is still
 * on is judged against the merged result, by the shops service (400 `common.err.validation_failed`).
 */
export const paymentMethodsPatch = z.strictObject({
  sbp: z.boolean().optional(),
  crypto_networks: networkList.optional(),
});
export type PaymentMethodsPatch = z.infer<typeof paymentMethodsPatch>;

/** Whether a shop with these methods takes a payment by `method` (on `network`, for crypto). */
export function shopTakes(methods: PaymentMethods, method: 'sbp' | 'crypto', network: CryptoNetwork | null): boolean {
  if (method === 'sbp') return methods.sbp;
  return network !== null && methods.crypto_networks.includes(network);
}
