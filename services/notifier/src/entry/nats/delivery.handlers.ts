import type { BusServer } from '@pl/bus';
import { subjects } from '@pl/contracts';
import type { DeliveryStore } from '../../domain/delivery';
import { listDeliveries, resendDelivery } from '../../domain/delivery-log';

/** The merchants' delivery log over NATS (the gateway's `/merchant/v1/webhook-deliveries` routes). */
export function registerDeliveryHandlers(server: BusServer, store: DeliveryStore, onResend: () => void): void {
  server.handle(subjects.deliveriesList, (req, ctx) => listDeliveries(store, ctx.identity, req));
  server.handle(subjects.deliveriesResend, async (req, ctx) => {
    const delivery = await resendDelivery(store, ctx.identity, req.id);
    onResend();
    return delivery;
  });
}
