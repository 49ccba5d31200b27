-- Up Migration
-- `webhook.test` deliveries (a merchant tests its webhook address) go through the same table, worker, retries
-- and attempt log as payment webhooks. They belong to no payment link and come from no Kafka event, so both
-- columns become nullable. We chose a NULL event_id over a synthetic inbox_events row: the inbox records the
-- Kafka events taken in (its only job is deduplicating redelivered ones), and a made-up event there would be
-- a second meaning for the same table. The check keeps a payment delivery exactly as strict as before.
ALTER TABLE deliveries ALTER COLUMN event_id DROP NOT NULL;
ALTER TABLE deliveries ALTER COLUMN payment_link_id DROP NOT NULL;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_event_source CHECK (
  (event = 'webhook.test' AND event_id IS NULL AND payment_link_id IS NULL)
  OR (event <> 'webhook.test' AND event_id IS NOT NULL AND payment_link_id IS NOT NULL)
);

-- The delivery log's filters: a merchant's deliveries of one shop, and of one status, newest first, each
-- read through an index instead of walking all of the merchant's deliveries.
CREATE INDEX deliveries_by_merchant_shop ON deliveries (merchant_id, shop_id, seq DESC);
CREATE INDEX deliveries_by_merchant_status ON deliveries (merchant_id, status, seq DESC);

-- Down Migration
-- Test deliveries cannot exist without a link and an event: they (and their attempts) are dropped.
DROP INDEX deliveries_by_merchant_status;
DROP INDEX deliveries_by_merchant_shop;
DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE event = 'webhook.test');
DELETE FROM deliveries WHERE event = 'webhook.test';
ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_source;
ALTER TABLE deliveries ALTER COLUMN payment_link_id SET NOT NULL;
ALTER TABLE deliveries ALTER COLUMN event_id SET NOT NULL;
