import { z } from 'zod';
import { paymentLink } from './link';
import { identifierText } from './text';

/** Crypto networks the checkout offers, `<COIN>-<NETWORK>`. */
export const CRYPTO_NETWORKS = ['USDT-TRC20', 'USDT-ERC20', 'USDT-TON', 'BTC-BTC', 'ETH-ETH', 'TON-TON'] as const;
export const cryptoNetwork = z.enum(CRYPTO_NETWORKS);
export type CryptoNetwork = z.infer<typeof cryptoNetwork>;

/** Body of `POST /p/{id}/select`. */
export const selectMethodBody = z.discriminatedUnion('method', [
  z.strictObject({ method: z.literal('crypto'), network: cryptoNetwork }),
  z.strictObject({ method: z.literal('sbp') }),
]);
export type SelectMethodBody = z.infer<typeof selectMethodBody>;

/**
 * What the buyer may see of a link: the link object without merchant_credit, platform_revenue,
 * fee_percent_bp and order_id, plus the shop's display name for the checkout page.
 */
export const buyerLinkView = paymentLink.omit({ merchant_credit: true, platform_revenue: true, fee_percent_bp: true, order_id: true }).extend({
  shop_name: z.string(),
  /**
   * The methods the checkout offers now: the shop's, less what the live provider cannot take now (a network
   * Heleket's services list reports unavailable or disabled). A select of another is 422 method_unavailable.
   */
  methods: z.object({ sbp: z.boolean(), crypto_networks: z.array(cryptoNetwork) }),
  /**
   * What the provider last said of the selected payment while it is not final, or null: `confirming` (seen, waiting
   * for confirmations), `partially_paid` (part arrived; `remaining_crypto_amount` of `payer_currency` still to send).
   */
  payment_progress: z.object({ status: z.enum(['confirming', 'partially_paid']), remaining_crypto_amount: z.string().nullable() }).nullable(),
});
export type BuyerLinkView = z.infer<typeof buyerLinkView>;

/** Body of a provider callback, `POST /callbacks/v1/{provider}`. */
export const providerCallbackBody = z.object({
  gateway_payment_id: identifierText(200),
  status: z.enum(['paid', 'failed']),
});
export type ProviderCallbackBody = z.infer<typeof providerCallbackBody>;

/** Body of `POST /p/{id}/simulate`, the test-mode checkout's stand-in for the provider (test links only). */
export const simulatePaymentBody = z.strictObject({ status: z.enum(['paid', 'failed']) });
export type SimulatePaymentBody = z.infer<typeof simulatePaymentBody>;
