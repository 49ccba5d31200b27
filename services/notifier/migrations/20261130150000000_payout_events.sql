-- Up Migration
-- Payout events (docs/payouts.md) are about a payout, not a link: their deliveries and inbox records name no link.
ALTER TABLE inbox_events ALTER COLUMN payment_link_id DROP NOT NULL;
ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_source,
  ADD CONSTRAINT deliveries_event_source CHECK (
    (event = 'webhook.test' AND event_id IS NULL AND payment_link_id IS NULL)
    OR (event LIKE 'payout.%' AND payment_link_id IS NULL)
    OR (event <> 'webhook.test' AND event NOT LIKE 'payout.%' AND payment_link_id IS NOT NULL)
  );

-- Down Migration
DELETE FROM deliveries WHERE event LIKE 'payout.%';
DELETE FROM inbox_events WHERE type LIKE 'payout.%';
ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_source,
  ADD CONSTRAINT deliveries_event_source CHECK (
    (event = 'webhook.test' AND event_id IS NULL AND payment_link_id IS NULL)
    OR (event <> 'webhook.test' AND payment_link_id IS NOT NULL)
  );
ALTER TABLE inbox_events ALTER COLUMN payment_link_id SET NOT NULL;
