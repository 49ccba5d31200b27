import type { BusServer } from '@pl/bus';
import { subjects } from '@pl/contracts';
import type { DeliveryStore, ShopDirectory } from '../../domain/delivery';
import { listDeliveries, resendDelivery } from '../../domain/delivery-log';
import { sendTestWebhook } from '../../domain/send-test-webhook';

/**
 * The merchants' delivery log over NATS (the gateway's webhook-delivery routes) and test webhooks. `wake` tells
 * the worker that a delivery is due now (a resend, a test).
 */
export function registerDeliveryHandlers(server: BusServer, store: DeliveryStore, shops: ShopDirectory, wake: () => void): void {
  server.handle(subjects.deliveriesList, (req, ctx) => listDeliveries(store, shops, ctx.identity, req));
  server.handle(subjects.deliveriesResend, async (req, ctx) => {
    const delivery = await resendDelivery(store, ctx.identity, req.id);
    wake();
    return delivery;
  });
  server.handle(subjects.deliveriesTest, async (req, ctx) => {
    const delivery = await sendTestWebhook(store, shops, ctx.identity, req.shop_id);
    wake();
    return delivery;
  });
}
