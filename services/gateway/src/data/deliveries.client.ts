import type { BusClient } from '@pl/bus';
import { subjects, type ListDeliveriesCommand, type MerchantIdentity, type WebhookDelivery, type WebhookDeliveryList } from '@pl/contracts';

/**
 * The notifier's delivery log, asked on behalf of a merchant: the notifier checks ownership and keeps to the
 * identity's mode (the other mode's deliveries are not found and not listed), so nothing here names a mode.
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
}
