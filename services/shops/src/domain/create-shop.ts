import { validationFailed } from '@pl/errors';
import { newShopInput, type NewShopInput, type Shop, type ShopStore } from './shop';
import { assertWebhookTarget, type WebhookTargetPolicy } from '@pl/webhook-target';

export interface ShopUseCaseDeps {
  shops: ShopStore;
  webhookPolicy: WebhookTargetPolicy;
}

/** Registers a shop for an existing merchant and issues its first cashier key (returned once). */
export async function createShop(
  deps: ShopUseCaseDeps,
  input: NewShopInput,
): Promise<{ shop: Shop; cashierKey: string }> {
  const parsed = newShopInput.safeParse(input);
  if (!parsed.success) throw validationFailed('Shop settings are invalid', parsed.error.issues);
  const shop = parsed.data;
  if (shop.webhook_url !== null) shop.webhook_url = await assertWebhookTarget(shop.webhook_url, deps.webhookPolicy);
  return deps.shops.createShop(shop);
}
