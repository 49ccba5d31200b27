import { parseOrThrow } from '@pl/contracts';
import { newShopInput, type CreatedShop, type NewShopInput, type ShopStore } from './shop';
import { assertWebhookTarget, type WebhookTargetPolicy } from '@pl/webhook-target';

export interface ShopUseCaseDeps {
  shops: ShopStore;
  webhookPolicy: WebhookTargetPolicy;
}

/** Registers a shop for an existing merchant and issues its first cashier keys, live and test (returned once). */
export async function createShop(deps: ShopUseCaseDeps, input: NewShopInput): Promise<CreatedShop> {
  const shop = parseOrThrow(newShopInput, input, 'Shop settings');
  if (shop.webhook_url !== null) shop.webhook_url = await assertWebhookTarget(shop.webhook_url, deps.webhookPolicy);
  return deps.shops.createShop(shop);
}
