-- Up Migration
-- Every event of docs/money.md (not only payment.succeeded) is recorded here, subscribed or not: the
-- events API lists them (per merchant and mode, by type, shop, link) and the inbox still deduplicates Kafka
-- redeliveries by event id. `body` holds the public body's exact bytes, serialized once on receipt: the webhook
-- sends the same bytes, so an event read from the API and one received by webhook are byte for byte alike.
-- `seq` orders events taken in within one second (`occurred_at` has seconds only).
ALTER TABLE inbox_events
  ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY,
  ADD COLUMN type text,
  ADD COLUMN merchant_id uuid,
  ADD COLUMN shop_id bigint,
  ADD COLUMN payment_link_id uuid,
  ADD COLUMN livemode boolean,
  ADD COLUMN occurred_at timestamptz,
  ADD COLUMN body bytea;

-- Events taken in before: all payment.succeeded (the only type there was), live unless they said otherwise. Their
-- body is rebuilt in the public shape (the payload has every field of it); jsonb orders its keys its own way,
-- which no reader depends on.
UPDATE inbox_events SET
  type = payload->>'event',
  merchant_id = (payload->>'merchant_id')::uuid,
  shop_id = (payload->'data'->>'shop_id')::bigint,
  payment_link_id = (payload->'data'->>'payment_link_id')::uuid,
  livemode = COALESCE((payload->>'livemode')::boolean, true),
  occurred_at = (payload->>'occurred_at')::timestamptz,
  body = convert_to(jsonb_build_object(
    'event', payload->>'event',
    'event_id', 'evt_' || event_id::text,
    'created_at', payload->>'occurred_at',
    'livemode', COALESCE((payload->>'livemode')::boolean, true),
    'data', payload->'data')::text, 'UTF8');

ALTER TABLE inbox_events
  ALTER COLUMN type SET NOT NULL,
  ALTER COLUMN merchant_id SET NOT NULL,
  ALTER COLUMN shop_id SET NOT NULL,
  ALTER COLUMN payment_link_id SET NOT NULL,
  ALTER COLUMN livemode SET NOT NULL,
  ALTER COLUMN occurred_at SET NOT NULL,
  ALTER COLUMN body SET NOT NULL;

-- The events API's lists, each filter in one mode read through its own index, newest first: a merchant's events,
-- of one shop, of one type; a link's events (a link is of one merchant and one mode). The purge walks the oldest.
CREATE INDEX inbox_events_by_merchant ON inbox_events (merchant_id, livemode, occurred_at DESC, seq DESC);
CREATE INDEX inbox_events_by_merchant_shop ON inbox_events (merchant_id, livemode, shop_id, occurred_at DESC, seq DESC);
CREATE INDEX inbox_events_by_merchant_type ON inbox_events (merchant_id, livemode, type, occurred_at DESC, seq DESC);
CREATE INDEX inbox_events_by_link ON inbox_events (payment_link_id, occurred_at DESC, seq DESC);
CREATE INDEX inbox_events_oldest ON inbox_events (occurred_at);
-- As for deliveries: a merchant's modes are far from even, and the planner must know it.
CREATE STATISTICS inbox_events_merchant_mode (mcv) ON merchant_id, livemode FROM inbox_events;

-- Events are kept 30 days (EVENT_RETENTION_DAYS); deliveries, the merchants' log, stay. A purged event leaves its
-- finished delivery in place with event_id NULL: the delivery keeps its body, webhook id and link, so it still
-- reads and resends as before. (The purge skips events whose delivery is still pending; a resend racing it is
-- harmless for the same reason.) Only a delivery from Kafka may lose its event: a test delivery never had one.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_id_fkey;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES inbox_events (event_id) ON DELETE SET NULL;
ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_source;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_event_source CHECK (
  (event = 'webhook.test' AND event_id IS NULL AND payment_link_id IS NULL)
  OR (event <> 'webhook.test' AND payment_link_id IS NOT NULL)
);

-- Down Migration
-- Deliveries whose event was purged cannot be held under the older, stricter rule: they (and their attempts) go.
DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE event <> 'webhook.test' AND event_id IS NULL);
DELETE FROM deliveries WHERE event <> 'webhook.test' AND event_id IS NULL;
ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_source;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_event_source CHECK (
  (event = 'webhook.test' AND event_id IS NULL AND payment_link_id IS NULL)
  OR (event <> 'webhook.test' AND event_id IS NOT NULL AND payment_link_id IS NOT NULL)
);
ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_id_fkey;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES inbox_events (event_id);
DROP STATISTICS inbox_events_merchant_mode;
DROP INDEX inbox_events_oldest;
DROP INDEX inbox_events_by_link;
DROP INDEX inbox_events_by_merchant_type;
DROP INDEX inbox_events_by_merchant_shop;
DROP INDEX inbox_events_by_merchant;
-- Deliveries of the new event types have no place without their events' types: they (and their attempts) go.
DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE event NOT IN ('payment.succeeded', 'webhook.test'));
DELETE FROM deliveries WHERE event NOT IN ('payment.succeeded', 'webhook.test');
DELETE FROM inbox_events WHERE type <> 'payment.succeeded';
ALTER TABLE inbox_events
  DROP COLUMN body,
  DROP COLUMN occurred_at,
  DROP COLUMN livemode,
  DROP COLUMN payment_link_id,
  DROP COLUMN shop_id,
  DROP COLUMN merchant_id,
  DROP COLUMN type,
  DROP COLUMN seq;
