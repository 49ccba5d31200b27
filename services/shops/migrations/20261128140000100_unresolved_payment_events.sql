-- Up Migration
-- A shop may choose the unresolved payments' events (docs/webhooks.md, "Event types"); nobody gets them unasked.
ALTER TABLE shops DROP CONSTRAINT shops_webhook_events_known,
  ADD CONSTRAINT shops_webhook_events_known CHECK (
    webhook_events <@ ARRAY[
      'payment.succeeded', 'payment.failed', 'payment_link.canceled', 'payment_link.expired',
      'refund.succeeded', 'refund.failed', 'payment.late_settled',
      'unresolved_payment.created', 'unresolved_payment.settled', 'unresolved_payment.refunded'
    ]::text[]
    AND array_position(webhook_events, NULL) IS NULL
  );

-- Down Migration
UPDATE shops SET webhook_events = array_remove(array_remove(array_remove(webhook_events,
  'unresolved_payment.created'), 'unresolved_payment.settled'), 'unresolved_payment.refunded');
ALTER TABLE shops DROP CONSTRAINT shops_webhook_events_known,
  ADD CONSTRAINT shops_webhook_events_known CHECK (
    webhook_events <@ ARRAY[
      'payment.succeeded', 'payment.failed', 'payment_link.canceled', 'payment_link.expired',
      'refund.succeeded', 'refund.failed', 'payment.late_settled'
    ]::text[]
    AND array_position(webhook_events, NULL) IS NULL
  );
