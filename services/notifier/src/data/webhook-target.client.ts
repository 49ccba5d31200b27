import type { BusClient } from '@pl/bus';
import { subjects, type Identity } from '@pl/contracts';
import { isAppError } from '@pl/errors';
import type { WebhookTarget, WebhookTargetSource } from '../domain/delivery';

const NOTIFIER: Identity = { kind: 'service', service: 'notifier' };

/** Asks the shops service for a shop's webhook URL and secret (CachedWebhookTargets keeps short-lived copies). */
export class WebhookTargetClient implements WebhookTargetSource {
  constructor(private readonly bus: BusClient) {}

  async targetOf(shopId: number): Promise<WebhookTarget> {
    try {
      const target = await this.bus.request(subjects.shopsWebhookTarget, { shop_id: shopId }, NOTIFIER);
      return { url: target.url, secret: target.secret };
    } catch (e) {
      // A deleted shop has nowhere to send to; that is a failed attempt, not an outage.
      if (isAppError(e) && e.kind === 'not_found') return { url: null, secret: null };
      throw e;
    }
  }
}
