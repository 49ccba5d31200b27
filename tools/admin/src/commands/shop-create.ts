import { z } from 'zod';
import { notFound } from '@pl/errors';
import { createShop } from '@pl/shops';
import type { AdminContext } from '../context';
import { parseFlags } from '../flags';
import { shopSettingFlags, shopSettingOptions } from './shop-settings';

const flags = z.strictObject({
  ...shopSettingFlags,
  merchant: z.uuid({ message: 'must be a merchant id (UUID)' }),
  name: z.string(),
});

/** `shop:create --merchant ID --name N [settings]` -> the shop id and its cashier key (shown only now). */
export async function shopCreate(args: string[], ctx: AdminContext): Promise<object> {
  const f = parseFlags(args, { ...shopSettingOptions, merchant: { type: 'string' } }, flags);
  if (!(await ctx.accounts().findById(f.merchant))) throw notFound('Merchant not found');
  const { shop, cashierKey } = await createShop(ctx.shops(), {
    merchant_id: f.merchant,
    name: f.name,
    status: f.status,
    fee_payer: f['fee-payer'],
    crypto_bps: f['crypto-bps'],
    sbp_bps: f['sbp-bps'],
    webhook_url: f['webhook-url'] ?? null,
    webhook_secret: f['webhook-secret'] ?? null,
  });
  return { shop_id: shop.id, cashier_key: cashierKey };
}
