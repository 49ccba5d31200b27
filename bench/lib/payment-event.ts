import { randomUUID } from 'node:crypto';
import type { EventMessage } from '@pl/bus';
import { formatMoscow, paymentEventHeaders, paymentSucceededEvent } from '@pl/contracts';

/**
 * The `n`th `payment.succeeded` event of a run (the shops take turns), for a new link id, exactly as the links
 * outbox relay publishes it (key = link id, `event-id` header) and checked by the same contract, so the notifier
 * benches can feed the topic directly.
 */
export function paymentSucceededMessage(merchantId: string, shopIds: readonly number[], n: number): { linkId: string; message: EventMessage } {
  const linkId = randomUUID();
  const eventId = randomUUID();
  const now = formatMoscow(new Date());
  const event = paymentSucceededEvent.parse({
    event_id: eventId,
    event: 'payment.succeeded',
    occurred_at: now,
    merchant_id: merchantId,
    data: {
      payment_link_id: linkId,
      id: linkId,
      shop_id: shopIds[n % shopIds.length],
      order_id: null,
      amount: '100.00',
      merchant_credit: '99.00',
      status: 'paid',
      paid_at: now,
    },
  });
  return {
    linkId,
    message: {
      key: linkId,
      value: JSON.stringify(event),
      headers: paymentEventHeaders(event),
    },
  };
}
