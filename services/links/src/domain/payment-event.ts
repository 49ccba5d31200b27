import { formatMoscow, paymentEventHeaders, type PaymentSucceededEvent, paymentSucceededEvent } from '@pl/contracts';
import { formatKopecks } from '@pl/money';
import type { LinkRecord, OutboxEntry } from './link';

/**
 * `payment.succeeded` for a link that was just paid, checked against its contract before it is stored:
 * a malformed event must fail the payment's transaction, not a consumer hours later.
 */
export function paymentSucceeded(paid: LinkRecord, eventId: string, topic: string): OutboxEntry {
  if (paid.status !== 'paid' || paid.paidAt === null) throw new Error(`link ${paid.id} is not paid`);
  const paidAt = formatMoscow(paid.paidAt);
  const event: PaymentSucceededEvent = paymentSucceededEvent.parse({
    event_id: eventId,
    event: 'payment.succeeded',
    occurred_at: paidAt,
    merchant_id: paid.merchantId,
    livemode: paid.livemode,
    data: {
      payment_link_id: paid.id,
      id: paid.id,
      shop_id: paid.shopId,
      order_id: paid.orderId,
      amount: formatKopecks(paid.amount),
      merchant_credit: formatKopecks(paid.merchantCredit),
      status: 'paid',
      paid_at: paidAt,
    },
  });
  return {
    id: eventId,
    topic,
    key: paid.id,
    payload: event,
    headers: paymentEventHeaders(event),
  };
}
