import { z } from 'zod';
import { bps, feePayer, positiveId, shopStatus, uuid } from './fields';
import { eventType } from './events';
import { paymentMethods } from './payment-methods';

/** A shop as other services see it: no webhook secret, no cashier keys. */
export const shopView = z.object({
  id: positiveId,
  merchant_id: uuid,
  name: z.string(),
  status: shopStatus,
  fee_payer: feePayer,
  crypto_bps: bps,
  sbp_bps: bps,
  webhook_url: z.string().nullable(),
  /** The event types sent to `webhook_url` (docs/webhooks.md, "Event types"). */
  webhook_events: z.array(eventType),
  /** The methods the shop takes (docs/providers.md, "A shop's methods"). */
  payment_methods: paymentMethods,
});
export type ShopView = z.infer<typeof shopView>;
