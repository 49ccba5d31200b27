import { z } from 'zod';
import { feePayer, shopStatus } from '@pl/contracts';
import type { Shop } from '../../../../services/shops/src/domain/shop';
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

/** Moscow has kept +03:00 all year since 2014, so a fixed offset is exact. */
const moscowTime = (d: Date): string => new Date(d.getTime() + 3 * 3600_000).toISOString().replace('Z', '+03:00');

/** A shop for the operator: every setting, but only whether a webhook secret is set, never the secret. */
export const shopOutput = (shop: Shop): object => ({
  id: shop.id,
  merchant_id: shop.merchantId,
  name: shop.name,
  status: shop.status,
  fee_payer: shop.feePayer,
  crypto_bps: shop.cryptoBps,
  sbp_bps: shop.sbpBps,
  webhook_url: shop.webhookUrl,
  has_webhook_secret: shop.hasWebhookSecret,
  created_at: moscowTime(shop.createdAt),
  updated_at: moscowTime(shop.updatedAt),
});
