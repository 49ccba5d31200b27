import { z } from 'zod';
import { bps, feePayer, positiveId, shopStatus, uuid } from './fields';

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
});
export type ShopView = z.infer<typeof shopView>;
