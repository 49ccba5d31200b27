import type { BusServer, HandlerContext } from '@pl/bus';
import { subjects } from '@pl/contracts';
import { activeSpan, MODE_ATTRIBUTE } from '@pl/telemetry';
import type { DeliveryStore, ShopDirectory } from '../../domain/delivery';
import { listDeliveries, resendDelivery } from '../../domain/delivery-log';
import { sendTestWebhook } from '../../domain/send-test-webhook';

/** Marks the span the bus handles the request in with the caller's mode: the world its deliveries are read in. */
function markMode(ctx: HandlerContext): void {
  if (ctx.identity.kind === 'merchant') activeSpan()?.setAttribute(MODE_ATTRIBUTE, ctx.identity.mode);
}

/**
 * The merchants' delivery log over NATS (the gateway's webhook-delivery routes) and test webhooks. `wake` tells
 * the worker that a delivery is due now (a resend, a test).
 */
export function registerDeliveryHandlers(server: BusServer, store: DeliveryStore, shops: ShopDirectory, wake: () => void): void {
  server.handle(subjects.deliveriesList, (req, ctx) => {
    markMode(ctx);
    return listDeliveries(store, shops, ctx.identity, req);
  });
  server.handle(subjects.deliveriesResend, async (req, ctx) => {
    markMode(ctx);
    const delivery = await resendDelivery(store, ctx.identity, req.id);
    wake();
    return delivery;
  });
  server.handle(subjects.deliveriesTest, async (req, ctx) => {
    markMode(ctx);
    const delivery = await sendTestWebhook(store, shops, ctx.identity, req.shop_id);
    wake();
    return delivery;
  });
}
