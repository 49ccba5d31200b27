-- Up Migration
-- Every Kafka event the notifier has taken in, keyed by the producer's event id: a redelivered event
-- (Kafka is at-least-once) finds its row and is not turned into a second webhook.
CREATE TABLE inbox_events (
  event_id uuid PRIMARY KEY,
  payload jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE inbox_events;
