import { formatMoscowOrNull, type Identity, type RotatedSecret, type RotateSecretCommand } from '@pl/contracts';
import { getManagedShop, requireConfirmedEmail } from './shop-access';
import type { ShopStore } from './shop';
import { newWebhookSecret, toStandardWebhooksSecret } from './webhook-secret';

/**
 * A new webhook secret, shown this once. The replaced one keeps signing beside it for `overlap_minutes`, so the
 * merchant's receiver can switch without missing a webhook; 0 ends it at once.
 */
export async function rotateWebhookSecret(shops: ShopStore, identity: Identity, command: RotateSecretCommand): Promise<RotatedSecret> {
  await getManagedShop(shops, identity, command.shop_id);
  requireConfirmedEmail(identity, 'rotating secrets');
  const secret = newWebhookSecret();
  const previousValidUntil = await shops.rotateWebhookSecret(command.shop_id, secret, command.overlap_minutes);
  return {
    webhook_secret: secret,
    standard_webhooks_secret: toStandardWebhooksSecret(secret),
    previous_valid_until: formatMoscowOrNull(previousValidUntil),
  };
}
