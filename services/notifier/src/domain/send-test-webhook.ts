import { randomUUID } from 'node:crypto';
import { DELIVERY_ATTEMPTS_SHOWN, formatMoscow, isLive, publicEventId, type Identity, type Mode, type WebhookDelivery } from '@pl/contracts';
import { noWebhookUrl, notFound } from '@pl/errors';
import type { DeliveryStore, ShopDirectory } from './delivery';
import { merchantOnly, toWebhookDelivery } from './delivery-log';

/**
 * The test webhook's body, serialized once: these exact bytes go out (and are signed) on every attempt. It has the
 * shape of every event's body (`event_id` = the webhook id, `created_at`) and the caller's mode as an event carries
 * its link's, so a receiver's parsing, deduplication and mode check can all be tested with it.
 */
const testWebhookBody = (webhookId: string, shopId: number, mode: Mode, sentAt: Date): Buffer => {
  const at = formatMoscow(sentAt);
  return Buffer.from(
    JSON.stringify({ event: 'webhook.test', event_id: webhookId, created_at: at, livemode: isLive(mode), data: { shop_id: shopId, sent_at: at } }),
    'utf8',
  );
};

/**
 * Queues a `webhook.test` delivery to the shop's webhook address: the same durable path as a payment's webhook
 * (headers, signatures, retries, the delivery log, resend). The shops service, asked with the caller's own
 * identity, answers not_found / forbidden for a shop the caller may not use; a shop without an address is 422.
 * No confirmed email is needed: a test reveals nothing. The delivery is of the caller's mode (shops, and so their
 * webhook addresses, are shared by both). Answers the delivery as stored (pending, no attempt yet).
 */
export async function sendTestWebhook(
  store: DeliveryStore,
  shops: ShopDirectory,
  identity: Identity,
  shopId: number,
  now: () => Date = () => new Date(),
): Promise<WebhookDelivery> {
  const merchant = merchantOnly(identity);
  const shop = await shops.shopFor(merchant, shopId);
  if (shop.webhookUrl === null) throw noWebhookUrl();
  const id = randomUUID();
  // An event id of its own (no event is recorded for a test): the id a receiver deduplicates by, as for any event.
  const webhookId = publicEventId(randomUUID());
  await store.addTestDelivery({
    id,
    webhookId,
    merchantId: shop.merchantId,
    shopId,
    mode: merchant.mode,
    body: testWebhookBody(webhookId, shopId, merchant.mode, now()),
  });
  const stored = await store.findById(merchant.mode, id, DELIVERY_ATTEMPTS_SHOWN);
  if (!stored) throw notFound('Webhook delivery not found');
  return toWebhookDelivery(stored);
}
