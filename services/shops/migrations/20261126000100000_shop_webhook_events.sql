-- Up Migration
-- The event types sent to a shop's webhook address (docs/webhooks.md, "Event types"). Every existing shop, and every new
-- one unless told otherwise, gets the contract's one event, so integrations built against it see nothing new.
-- The check keeps an operator's SQL from storing a type the notifier would never match (or a NULL element); the
-- services validate first, so a caller never meets it. Repeats are refused by the services (a CHECK cannot hold
-- a subquery), and a repeat would change nothing anyway.
ALTER TABLE shops ADD COLUMN webhook_events text[] NOT NULL DEFAULT '{payment.succeeded}'
  CONSTRAINT shops_webhook_events_known CHECK (
    webhook_events <@ ARRAY[
      'payment.succeeded', 'payment.failed', 'payment_link.canceled', 'payment_link.expired',
      'refund.succeeded', 'refund.failed', 'payment.late_settled'
    ]::text[]
    AND array_position(webhook_events, NULL) IS NULL
  );

-- Down Migration
ALTER TABLE shops DROP COLUMN webhook_events;
