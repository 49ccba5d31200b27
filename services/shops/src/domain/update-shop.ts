import { parseOrThrow } from '@pl/contracts';
import type { ShopUseCaseDeps } from './create-shop';
import { shopPatchInput, type Shop, type ShopPatch } from './shop';
import { assertWebhookTarget } from '@pl/webhook-target';

/** Changes a shop's settings; a new webhook URL passes the same target rule as at creation. */
export async function updateShop(deps: ShopUseCaseDeps, shopId: number, input: ShopPatch): Promise<Shop> {
  const patch = parseOrThrow(shopPatchInput, input, 'Shop settings');
  if (typeof patch.webhook_url === 'string') {
    patch.webhook_url = await assertWebhookTarget(patch.webhook_url, deps.webhookPolicy);
  }
  return deps.shops.updateShop(shopId, patch);
}
