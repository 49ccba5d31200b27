import type { Identity, UpdateShopCommand } from '@pl/contracts';
import type { ShopUseCaseDeps } from './create-shop';
import { getManagedShop } from './shop-access';
import type { Shop } from './shop';
import { updateShop } from './update-shop';

/**
 * A merchant changes its shop's name, webhook address (null clears it), fee payer, event subscription or payment methods; no confirmed
 * email needed.
 */
export async function updateMerchantShop(deps: ShopUseCaseDeps, identity: Identity, command: UpdateShopCommand): Promise<Shop> {
  await getManagedShop(deps.shops, identity, command.shop_id);
  return updateShop(deps, command.shop_id, {
    name: command.name,
    webhook_url: command.webhook_url,
    fee_payer: command.fee_payer,
    webhook_events: command.webhook_events,
    payment_methods: command.payment_methods,
  });
}
