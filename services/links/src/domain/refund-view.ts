import { formatMoscow, paymentEventHeaders, platformEvent, type Refund, type RefundPage } from '@pl/contracts';
import { formatKopecks } from '@pl/money';
import { encodeCursor } from './cursor';
import type { OutboxEntry } from './link';
import type { RefundRecord } from './refund';

/** The refund object of both route families and of the refund events. */
export const toRefund = (r: RefundRecord): Refund => ({
  id: r.id,
  payment_link_id: r.paymentLinkId,
  shop_id: r.shopId,
  amount: formatKopecks(r.amount),
  currency: 'RUB',
  status: r.status,
  reason: r.reason,
  destination: r.destination,
  gateway_refund_id: r.gatewayRefundId,
  failure_reason: r.failureReason,
  late_payment_id: r.latePaymentId,
  livemode: r.livemode,
  created_at: formatMoscow(r.createdAt),
  updated_at: formatMoscow(r.updatedAt),
});

/** A page of `links.refunds.list`: `items` holds one row beyond the page when another page follows. */
export function toRefundPage(items: RefundRecord[], limit: number): RefundPage {
  const page = items.slice(0, limit);
  const hasMore = items.length > limit;
  const last = page[page.length - 1];
  return {
    refunds: page.map(toRefund),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor({ createdAtMicros: last.createdAtMicros, id: last.id }) : null,
  };
}

/**
 * `refund.succeeded` / `refund.failed` for a refund just settled, checked against the contract before it is
 * stored (a malformed event must fail the settle's transaction). Keyed by the link, as the link's own events.
 */
export function refundSettledEvent(settled: RefundRecord, eventId: string, topic: string): OutboxEntry {
  if (settled.status === 'pending') throw new Error(`refund ${settled.id} is not final`);
  const event = platformEvent.parse({
    event_id: eventId,
    event: `refund.${settled.status}`,
    occurred_at: formatMoscow(settled.updatedAt),
    merchant_id: settled.merchantId,
    livemode: settled.livemode,
    data: toRefund(settled),
  });
  return { id: eventId, topic, key: settled.paymentLinkId, payload: event, headers: paymentEventHeaders(event) };
}
