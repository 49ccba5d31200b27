import { validationFailed } from '@pl/errors';
import type { ShopUseCaseDeps } from './create-shop';
import { shopPatchInput, type Shop, type ShopPatch } from './shop';
import { assertWebhookTarget } from '@pl/webhook-target';

/** Changes a shop's settings; a new webhook URL passes the same target rule as at creation. */
export async function updateShop(deps: ShopUseCaseDeps, shopId: number, input: ShopPatch): Promise<Shop> {
  const parsed = shopPatchInput.safeParse(input);
  if (!parsed.success) throw validationFailed('Shop settings are invalid', parsed.error.issues);
  const patch = parsed.data;
  if (typeof patch.webhook_url === 'string') {
    patch.webhook_url = await assertWebhookTarget(patch.webhook_url, deps.webhookPolicy);
  }
  return deps.shops.updateShop(shopId, patch);
}
