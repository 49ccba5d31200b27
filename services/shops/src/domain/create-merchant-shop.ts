import type { CreateShopCommand, Identity } from '@pl/contracts';
import { createShop, type ShopUseCaseDeps } from './create-shop';
import { requireConfirmedEmail, requireShopManager } from './shop-access';
import type { Shop } from './shop';
import { newWebhookSecret } from './webhook-secret';

/** The platform's rates a merchant's new shop starts with (an operator sets others). */
interface DefaultRates {
  cryptoBps: number;
  sbpBps: number;
}

export interface MerchantShopDeps extends ShopUseCaseDeps {
  defaultRates: DefaultRates;
}

/**
 * A merchant registers a shop: `pending` until an operator approves it, at the platform's rates. Its webhook
 * secret and cashier keys (live and test) exist from the start but are not returned: a rotation and a reissue of
 * the mode's key show them once.
 */
export async function createMerchantShop(deps: MerchantShopDeps, identity: Identity, command: CreateShopCommand): Promise<Shop> {
  const who = requireShopManager(identity);
  requireConfirmedEmail(who, 'creating shops');
  const { shop } = await createShop(deps, {
    merchant_id: who.merchant_id,
    name: command.name,
    status: 'pending',
    fee_payer: command.fee_payer,
    crypto_bps: deps.defaultRates.cryptoBps,
    sbp_bps: deps.defaultRates.sbpBps,
    webhook_url: command.webhook_url,
    webhook_secret: newWebhookSecret(),
  });
  return shop;
}
