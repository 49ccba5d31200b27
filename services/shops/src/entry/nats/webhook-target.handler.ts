import type { BusServer } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { forbidden } from '@pl/errors';
import type { WebhookTarget } from '../../domain/shop';

/** Reads a shop's webhook target with its secret opened; throws not_found for an unknown shop. */
export interface WebhookTargetReader {
  getWebhookTarget(shopId: number): Promise<WebhookTarget>;
}

/**
 * `shops.webhook_target`: the URL and the decrypted secret, for the notifier at send time. Only platform
 * services may ask (a merchant never reads a secret back); a shop without a URL answers nulls (and still its event types: the notifier records a delivery for each). While a rotation's
 * overlap lasts, the replaced secret comes too, so every webhook carries both signatures.
 */
export function registerWebhookTargetHandler(server: BusServer, shops: WebhookTargetReader): void {
  server.handle(subjects.shopsWebhookTarget, async (req, ctx) => {
    if (ctx.identity.kind !== 'service') throw forbidden('Only platform services may read webhook targets');
    const target = await shops.getWebhookTarget(req.shop_id);
    return {
      shop_id: req.shop_id,
      url: target.url,
      secret: target.secret,
      previous_secret: target.previousSecret,
      webhook_events: target.webhookEvents,
    };
  });
}
