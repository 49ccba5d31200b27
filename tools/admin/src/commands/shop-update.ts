import { z } from 'zod';
import { updateShop } from '@pl/shops';
import type { AdminContext } from '../context';
import { idFlag, parseFlags } from '../flags';
import { shopOutput, shopSettingFlags, shopSettingOptions } from './shop-settings';

const flags = z.strictObject({ ...shopSettingFlags, shop: idFlag });

/** An empty string clears an optional setting: `--webhook-url ''` removes the webhook. */
const orClear = (value: string | undefined): string | null | undefined => (value === '' ? null : value);

/** `shop:update --shop ID [settings]` -> the shop after the change, secrets left out. */
export async function shopUpdate(args: string[], ctx: AdminContext): Promise<object> {
  const f = parseFlags(args, { ...shopSettingOptions, shop: { type: 'string' } }, flags);
  const shop = await updateShop(ctx.shops(), f.shop, {
    name: f.name,
    status: f.status,
    fee_payer: f['fee-payer'],
    crypto_bps: f['crypto-bps'],
    sbp_bps: f['sbp-bps'],
    webhook_url: orClear(f['webhook-url']),
    webhook_secret: orClear(f['webhook-secret']),
  });
  return shopOutput(shop);
}
