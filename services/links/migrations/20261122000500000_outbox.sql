-- Up Migration
-- Transactional outbox: an event is written in the same transaction as the state change it reports and
-- published to Kafka by the relay afterwards. The row id is the event id (payload event_id, `event-id`
-- header), so a row published twice after a crash is recognisable downstream as the same event.
CREATE TABLE outbox (
  id uuid PRIMARY KEY,
  topic text NOT NULL,
  -- Kafka message key: the payment link id, so one link's events keep their order in one partition.
  message_key text NOT NULL,
  payload jsonb NOT NULL,
  headers jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz
);

-- The relay only ever reads unpublished rows, oldest first; published ones leave the index.
CREATE INDEX outbox_unpublished_idx ON outbox (created_at, id) WHERE published_at IS NULL;

-- Down Migration
DROP TABLE outbox;
