import { z } from 'zod';
import { feePayer, formatMoscow, shopStatus } from '@pl/contracts';
import { toShopView, type Shop } from '@pl/shops';
import { bpsFlag } from '../flags';

/** The shop-setting flags `shop:create` and `shop:update` share. */
export const shopSettingOptions = {
  name: { type: 'string' },
  status: { type: 'string' },
  'fee-payer': { type: 'string' },
  'crypto-bps': { type: 'string' },
  'sbp-bps': { type: 'string' },
  'webhook-url': { type: 'string' },
  'webhook-secret': { type: 'string' },
} as const;

export const shopSettingFlags = {
  name: z.string().optional(),
  status: shopStatus.optional(),
  'fee-payer': feePayer.optional(),
  'crypto-bps': bpsFlag.optional(),
  'sbp-bps': bpsFlag.optional(),
  'webhook-url': z.string().optional(),
  'webhook-secret': z.string().optional(),
};

/** A shop for the operator: every setting, but only whether a webhook secret is set, never the secret. */
export const shopOutput = (shop: Shop): object => ({
  ...toShopView(shop),
  has_webhook_secret: shop.hasWebhookSecret,
  created_at: formatMoscow(shop.createdAt),
  updated_at: formatMoscow(shop.updatedAt),
});
