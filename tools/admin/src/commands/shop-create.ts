import { z } from 'zod';
import { notFound } from '@pl/errors';
import { createShop } from '@pl/shops';
import type { Command } from '../command';
import { checkFlags, readFlags, uuidFlag } from '../flags';
import { withSecret } from '../secrets';
import { SHOP_SETTINGS_HELP, shopSettingFlags, shopSettingOptions, WEBHOOK_SECRET } from './shop-settings';

const flags = z.strictObject({
  ...shopSettingFlags,
  merchant: uuidFlag('a merchant'),
  name: z.string(),
});

/** `shop:create --merchant ID --name N [settings]` -> the shop id and its live and test cashier keys (shown only now). */
export const shopCreate: Command = {
  summary: 'create a shop for a merchant; prints its live and test cashier keys',
  help: `Usage: shop:create --merchant ID --name N [settings]

Creates a shop. Defaults: status pending, fee payer merchant, crypto 100 bps, SBP 100 bps, no webhook.

  --merchant ID                 the owner (a merchant id, UUID)
${SHOP_SETTINGS_HELP}

Prints {"shop_id", "cashier_key", "test_cashier_key"}: the live key (svc_live_...) takes real payments, the
test key (svc_test_...) creates only test links. Both are shown only now; the merchant can reissue either.`,
  async run(args, ctx, io) {
    const values = readFlags(args, { ...shopSettingOptions, merchant: { type: 'string' } });
    const f = checkFlags(await withSecret(values, WEBHOOK_SECRET, ctx.env, io), flags);
    if (!(await ctx.accounts().findById(f.merchant))) throw notFound('Merchant not found');
    const { shop, cashierKey, testCashierKey } = await createShop(ctx.shops(), {
      merchant_id: f.merchant,
      name: f.name,
      status: f.status,
      fee_payer: f['fee-payer'],
      crypto_bps: f['crypto-bps'],
      sbp_bps: f['sbp-bps'],
      webhook_url: f['webhook-url'] ?? null,
      webhook_secret: f['webhook-secret'] ?? null,
    });
    return { shop_id: shop.id, cashier_key: cashierKey, test_cashier_key: testCashierKey };
  },
};
