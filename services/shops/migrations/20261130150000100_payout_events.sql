-- Up Migration
-- A shop may choose the payouts' events (docs/webhooks.md, "Event types"); nobody gets them unasked.
ALTER TABLE shops DROP CONSTRAINT shops_webhook_events_known,
  ADD CONSTRAINT shops_webhook_events_known CHECK (
    webhook_events <@ ARRAY[
      'payment.succeeded', 'payment.failed', 'payment_link.canceled', 'payment_link.expired',
      'refund.succeeded', 'refund.failed', 'payment.late_settled',
      'unresolved_payment.created', 'unresolved_payment.settled', 'unresolved_payment.refunded',
      'payout.created', 'payout.paid', 'payout.failed', 'payout.canceled'
    ]::text[]
    AND array_position(webhook_events, NULL) IS NULL
  );

-- Down Migration
UPDATE shops SET webhook_events = array_remove(array_remove(array_remove(array_remove(webhook_events,
  'payout.created'), 'payout.paid'), 'payout.failed'), 'payout.canceled');
ALTER TABLE shops DROP CONSTRAINT shops_webhook_events_known,
  ADD CONSTRAINT shops_webhook_events_known CHECK (
    webhook_events <@ ARRAY[
      'payment.succeeded', 'payment.failed', 'payment_link.canceled', 'payment_link.expired',
      'refund.succeeded', 'refund.failed', 'payment.late_settled',
      'unresolved_payment.created', 'unresolved_payment.settled', 'unresolved_payment.refunded'
    ]::text[]
    AND array_position(webhook_events, NULL) IS NULL
  );
