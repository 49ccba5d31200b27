import { z } from 'zod';
import { feePayer, formatMoscow, shopStatus } from '@pl/contracts';
import { toShopView, type Shop } from '@pl/shops';
import { bpsFlag } from '../flags';
import type { SecretSource } from '../secrets';

/** The shop-setting flags `shop:create` and `shop:update` share. */
export const shopSettingOptions = {
  name: { type: 'string' },
  status: { type: 'string' },
  'fee-payer': { type: 'string' },
  'crypto-bps': { type: 'string' },
  'sbp-bps': { type: 'string' },
  'webhook-url': { type: 'string' },
  'webhook-secret': { type: 'string' },
  'webhook-secret-stdin': { type: 'boolean' },
  'webhook-secret-from-env': { type: 'boolean' },
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

/** The webhook secret is optional, so the environment is read only when a flag asks for it. */
export const WEBHOOK_SECRET: SecretSource = {
  flag: 'webhook-secret',
  stdinFlag: 'webhook-secret-stdin',
  envName: 'ADMIN_WEBHOOK_SECRET',
  envFlag: 'webhook-secret-from-env',
};

export const SHOP_SETTINGS_HELP = `  --name N                      the shop's name
  --status S                    approved | pending | rejected | blocked
  --fee-payer P                 merchant | client | split
  --crypto-bps N                crypto fee in basis points (0 to 10000)
  --sbp-bps N                   SBP fee in basis points (0 to 10000)
  --webhook-url U               where the shop's webhooks go (http or https)
  --webhook-secret-stdin        read the webhook signing secret from standard input (one trailing newline is dropped)
  --webhook-secret-from-env     read it from ADMIN_WEBHOOK_SECRET
  --webhook-secret S            deprecated: the secret lands in shell history and the process list (warns)`;

/** A shop for the operator: every setting, but only whether a webhook secret is set, never the secret. */
export const shopOutput = (shop: Shop): object => ({
  ...toShopView(shop),
  has_webhook_secret: shop.hasWebhookSecret,
  created_at: formatMoscow(shop.createdAt),
  updated_at: formatMoscow(shop.updatedAt),
});
