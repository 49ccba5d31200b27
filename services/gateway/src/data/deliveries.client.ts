import type { BusClient } from '@pl/bus';
import {
  subjects,
  type ListDeliveriesCommand,
  type ListEventsCommand,
  type MerchantIdentity,
  type WebhookDelivery,
  type WebhookDeliveryList,
  type WebhookEvent,
  type WebhookEventPage,
} from '@pl/contracts';

/**
 * The notifier's delivery log and events API, asked on behalf of a merchant: the notifier checks ownership and keeps to the
 * identity's mode (the other mode's deliveries and events are not found and not listed), so nothing here names a mode.
 */
export class DeliveriesClient {
  constructor(private readonly bus: BusClient) {}

  list(identity: MerchantIdentity, command: ListDeliveriesCommand, requestId: string): Promise<WebhookDeliveryList> {
    return this.bus.request(subjects.deliveriesList, command, identity, { requestId });
  }

  resend(identity: MerchantIdentity, id: string, requestId: string): Promise<WebhookDelivery> {
    return this.bus.request(subjects.deliveriesResend, { id }, identity, { requestId });
  }

  /** A `webhook.test` delivery to the shop's webhook address (the notifier asks shops whether the merchant owns it). */
  test(identity: MerchantIdentity, shopId: number, requestId: string): Promise<WebhookDelivery> {
    return this.bus.request(subjects.deliveriesTest, { shop_id: shopId }, identity, { requestId });
  }

  /** The merchant's recorded events, newest first (subscribed or not). */
  events(identity: MerchantIdentity, command: ListEventsCommand, requestId: string): Promise<WebhookEventPage> {
    return this.bus.request(subjects.eventsList, command, identity, { requestId });
  }

  /** One event by its public id (`evt_…`): 404 when malformed, unknown or of the other mode, 403 when another merchant's. */
  event(identity: MerchantIdentity, eventId: string, requestId: string): Promise<WebhookEvent> {
    return this.bus.request(subjects.eventsGet, { event_id: eventId }, identity, { requestId });
  }
}
