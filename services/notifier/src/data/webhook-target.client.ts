import { ShopCopies, type BusClient } from '@pl/bus';
import { DEFAULT_WEBHOOK_EVENTS, subjects, type EventType, type Identity } from '@pl/contracts';
import { isAppError } from '@pl/errors';
import type { WebhookTarget, WebhookTargetSource } from '../domain/delivery';
import type { EventSubscriptions } from '../domain/payment-event';

const NOTIFIER: Identity = { kind: 'service', service: 'notifier' };

/**
 * Asks the shops service for a shop's webhook URL, secret and event subscription, and keeps short-lived copies (ShopCopies), so
 * an attempt does not cost a round trip to the shops service and its secret decryption each time. A changed
 * URL or secret is normally dropped moments after the change; after a lost notice an attempt may use the old
 * target for at most 5 s (a receiver that rejects the old signature sees the next attempt with the new one).
 * The secrets stay in this process's memory only. The same copies decide which events get a delivery, so a
 * changed subscription takes effect as soon as a changed URL does.
 */
export class WebhookTargetClient implements WebhookTargetSource, EventSubscriptions {
  private readonly copies: ShopCopies<WebhookTarget>;

  constructor(private readonly bus: BusClient) {
    this.copies = new ShopCopies(bus, (shopId) => this.fetch(shopId));
  }

  targetOf(shopId: number): Promise<WebhookTarget> {
    return this.copies.get(shopId);
  }

  async eventsOf(shopId: number): Promise<readonly EventType[]> {
    return (await this.copies.get(shopId)).webhookEvents;
  }

  private async fetch(shopId: number): Promise<WebhookTarget> {
    try {
      const target = await this.bus.request(subjects.shopsWebhookTarget, { shop_id: shopId }, NOTIFIER);
      return { url: target.url, secret: target.secret, previousSecret: target.previous_secret, webhookEvents: target.webhook_events };
    } catch (e) {
      // A deleted shop has nowhere to send to; that is a failed attempt, not an outage. Its events are delivered
      // (and fail) as the default subscription says, as every event of such a shop did before subscriptions.
      if (isAppError(e) && e.kind === 'not_found') return { url: null, secret: null, previousSecret: null, webhookEvents: DEFAULT_WEBHOOK_EVENTS };
      throw e;
    }
  }
}
