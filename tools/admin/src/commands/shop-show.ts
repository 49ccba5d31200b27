import { z } from 'zod';
import { notFound } from '@pl/errors';
import type { Command } from '../command';
import { idFlag, parseFlags } from '../flags';
import { shopOutput } from './shop-settings';

const flags = z.strictObject({ shop: idFlag });

/** `shop:show --shop ID` -> the shop, secrets left out. */
export const shopShow: Command = {
  summary: 'show one shop (no secrets)',
  help: `Usage: shop:show --shop ID

  --shop ID   the shop's id

Prints the shop: id, merchant_id, name, status, fee_payer, crypto_bps, sbp_bps, webhook_url,
has_webhook_secret, created_at, updated_at. Never its webhook secret nor its cashier key.`,
  async run(args, ctx) {
    const f = parseFlags(args, { shop: { type: 'string' } }, flags);
    const shop = await ctx.shops().shops.getShop(f.shop);
    if (!shop) throw notFound('Shop not found');
    return shopOutput(shop);
  },
};
