import { randomBytes } from 'node:crypto';
import { Db } from '@pl/db';
import { createLogger } from '@pl/telemetry';
import { AccountRepository } from '@pl/gateway';
import { SecretBox, ShopRepository } from '@pl/shops';

export interface SoakMerchant {
  id: string;
  email: string;
  password: string;
  /** X-API-Key / X-API-Secret. */
  keys: Record<string, string>;
  shopId: number;
  /** Dashboard session token, once logged in through a gateway. */
  session?: string;
}

/**
 * Merchants, each with one approved shop whose webhooks go to the soak's receiver, written through the
 * owning services' repositories as the admin CLI and the tests do.
 */
export async function seedMerchants(o: {
  databaseUrl: string;
  webhookSecretKey: string;
  webhookUrl: string;
  webhookSecret: string;
  count: number;
}): Promise<SoakMerchant[]> {
  const log = createLogger('soak', 'warn');
  const accountsDb = new Db({ url: o.databaseUrl, schema: 'gateway', log, max: 2 });
  const shopsDb = new Db({ url: o.databaseUrl, schema: 'shops', log, max: 2 });
  try {
    const accounts = new AccountRepository(accountsDb);
    const shops = new ShopRepository(shopsDb, SecretBox.fromBase64(o.webhookSecretKey));
    const merchants: SoakMerchant[] = [];
    for (let i = 0; i < o.count; i++) {
      const email = `soak-${randomBytes(6).toString('hex')}@example.com`;
      const password = `pw-${randomBytes(12).toString('hex')}`;
      const created = await accounts.createMerchant({ email, password, emailConfirmed: true });
      const shop = await shops.createShop({
        merchant_id: created.merchant.id,
        name: `Soak shop ${i + 1}`,
        status: 'approved',
        fee_payer: 'split',
        crypto_bps: 150,
        sbp_bps: 70,
        webhook_url: `${o.webhookUrl}/${i + 1}`,
        webhook_secret: o.webhookSecret,
      });
      merchants.push({
        id: created.merchant.id,
        email,
        password,
        keys: { 'X-API-Key': created.apiKey, 'X-API-Secret': created.apiSecret },
        shopId: shop.shop.id,
      });
    }
    return merchants;
  } finally {
    await accountsDb.close();
    await shopsDb.close();
  }
}
