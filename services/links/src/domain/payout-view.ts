import { formatMoscow, formatMoscowOrNull, paymentEventHeaders, platformEvent, type Payout, type PayoutPage } from '@pl/contracts';
import { formatKopecks } from '@pl/money';
import { encodeCursor } from './cursor';
import type { OutboxEntry } from './link';
import type { PayoutRecord } from './payout';

/** The payout object of both route families and of the payout events: the destination masked, never its details. */
export const toPayout = (p: PayoutRecord): Payout => ({
  id: p.id,
  shop_id: p.shopId,
  amount: formatKopecks(p.amount),
  fee: formatKopecks(p.fee),
  currency: 'RUB',
  destination: { id: p.destination.id, type: p.destination.type, masked: p.destination.masked },
  status: p.status,
  description: p.description,
  failure_reason: p.failureReason,
  created_by: p.createdBy,
  approved_by: p.approvedBy,
  created_at: formatMoscow(p.createdAt),
  approved_at: formatMoscowOrNull(p.approvedAt),
  paid_at: formatMoscowOrNull(p.paidAt),
  livemode: p.livemode,
});

/** A page of `links.payouts.list`: `items` holds one row beyond the page when another page follows. */
export function toPayoutPage(items: PayoutRecord[], limit: number): PayoutPage {
  const page = items.slice(0, limit);
  const last = page.at(-1);
  const hasMore = items.length > limit && last !== undefined;
  return {
    payouts: page.map(toPayout),
    has_more: hasMore,
    next_cursor: hasMore ? encodeCursor({ createdAtMicros: last.createdAtMicros, id: last.id }) : null,
  };
}

export type PayoutEventType = 'payout.created' | 'payout.paid' | 'payout.failed' | 'payout.canceled';

/**
 * A payout event for the outbox, checked against the contract before it is stored (a malformed event must fail its
 * move's transaction). Keyed by the payout id: one payout's events stay in one partition, in order.
 */
export function payoutEvent(type: PayoutEventType, p: PayoutRecord, eventId: string, topic: string): OutboxEntry {
  const event = platformEvent.parse({
    event_id: eventId,
    event: type,
    occurred_at: formatMoscow(p.updatedAt),
    merchant_id: p.merchantId,
    livemode: p.livemode,
    data: toPayout(p),
  });
  return { id: eventId, topic, key: p.id, payload: event, headers: paymentEventHeaders(event) };
}
