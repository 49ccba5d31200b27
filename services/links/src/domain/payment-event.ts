import { formatMoscow, paymentEventHeaders, type PlatformEvent, platformEvent, type UnresolvedPaymentView } from '@pl/contracts';
import { formatKopecks } from '@pl/money';
import type { LatePayment, LinkRecord, OutboxEntry, UnresolvedPayment } from './link';

/** The fields of the contract's `payment.succeeded` data, which every link event carries. */
const linkFields = (link: LinkRecord) => ({
  payment_link_id: link.id,
  id: link.id,
  shop_id: link.shopId,
  order_id: link.orderId,
  amount: formatKopecks(link.amount),
  merchant_credit: formatKopecks(link.merchantCredit),
});

/**
 * An event checked against its contract before it is stored (a malformed event must fail the move's transaction,
 * not a consumer hours later), as the outbox row that carries it. Keyed by the link, so one link's events stay in
 * one partition, in order.
 */
function entryOf(draft: unknown, linkId: string, topic: string): OutboxEntry {
  const event: PlatformEvent = platformEvent.parse(draft);
  return { id: event.event_id, topic, key: linkId, payload: event, headers: paymentEventHeaders(event) };
}

/** `payment.succeeded` for a link that was just paid: the time of the move is its `paid_at`. */
export function paymentSucceeded(paid: LinkRecord, eventId: string, topic: string): OutboxEntry {
  if (paid.status !== 'paid' || paid.paidAt === null) throw new Error(`link ${paid.id} is not paid`);
  const paidAt = formatMoscow(paid.paidAt);
  return entryOf(
    {
      event_id: eventId,
      event: 'payment.succeeded',
      occurred_at: paidAt,
      merchant_id: paid.merchantId,
      livemode: paid.livemode,
      data: { ...linkFields(paid), status: 'paid', paid_at: paidAt },
    },
    paid.id,
    topic,
  );
}

/** Each move other than paid, its event and the data field that carries the time of the move. */
const CLOSING_EVENTS = {
  failed: { event: 'payment.failed', at: 'failed_at' },
  canceled: { event: 'payment_link.canceled', at: 'canceled_at' },
  expired: { event: 'payment_link.expired', at: 'expired_at' },
} as const;

/**
 * The event of a link that just failed, was canceled or expired, built from its row as the move returned it: the
 * time of the move is the row's `updated_at`, which the move stamped.
 */
export function linkClosed(moved: LinkRecord, eventId: string, topic: string): OutboxEntry {
  if (moved.status !== 'failed' && moved.status !== 'canceled' && moved.status !== 'expired') {
    throw new Error(`link ${moved.id} is ${moved.status}, not closed`);
  }
  const { event, at } = CLOSING_EVENTS[moved.status];
  const movedAt = formatMoscow(moved.updatedAt);
  return entryOf(
    {
      event_id: eventId,
      event,
      occurred_at: movedAt,
      merchant_id: moved.merchantId,
      livemode: moved.livemode,
      data: {
        ...linkFields(moved),
        status: moved.status,
        [at]: movedAt,
        ...(moved.status === 'failed' ? { failure_reason: moved.failureReason ?? 'provider_failed' } : {}),
      },
    },
    moved.id,
    topic,
  );
}

/**
 * `payment.late_settled`: an operator credited `late` to the shop of `link`. The link keeps its status; `amount`
 * is the link's, `merchant_credit` what the late payment credited.
 */
export function lateSettled(link: LinkRecord, late: LatePayment, settledAt: Date, eventId: string, topic: string): OutboxEntry {
  const at = formatMoscow(settledAt);
  return entryOf(
    {
      event_id: eventId,
      event: 'payment.late_settled',
      occurred_at: at,
      merchant_id: link.merchantId,
      livemode: link.livemode,
      data: {
        ...linkFields(link),
        merchant_credit: formatKopecks(late.merchantCredit),
        status: link.status,
        late_payment_id: late.id,
        gateway_payment_id: late.gatewayPaymentId,
        settled_at: at,
      },
    },
    link.id,
    topic,
  );
}

/** The public object of an unresolved payment (its routes' and events' `data`). */
export function unresolvedView(u: UnresolvedPayment): UnresolvedPaymentView {
  return {
    id: u.id,
    shop_id: u.shopId,
    payment_link_id: u.linkId,
    reason: u.reason,
    provider: u.provider,
    gateway_payment_id: u.gatewayPaymentId,
    amount: formatKopecks(u.amount),
    payer_currency: u.payerCurrency,
    payer_crypto_amount: u.payerCryptoAmount,
    status: u.resolution ?? 'unresolved',
    refund_id: u.refundId,
    created_at: formatMoscow(u.receivedAt),
    resolved_at: u.resolvedAt === null ? null : formatMoscow(u.resolvedAt),
    livemode: u.livemode,
  };
}

/** `unresolved_payment.created` / `.settled` / `.refunded`: the record as it stands after the change it reports. */
export function unresolvedEvent(
  event: 'unresolved_payment.created' | 'unresolved_payment.settled' | 'unresolved_payment.refunded',
  u: UnresolvedPayment,
  at: Date,
  eventId: string,
  topic: string,
): OutboxEntry {
  return entryOf(
    { event_id: eventId, event, occurred_at: formatMoscow(at), merchant_id: u.merchantId, livemode: u.livemode, data: unresolvedView(u) },
    u.linkId,
    topic,
  );
}
