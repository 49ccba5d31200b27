-- Up Migration
-- Every Kafka event the notifier has taken in, keyed by the producer's event id: a redelivered event
-- (Kafka is at-least-once) finds its row and is not turned into a second webhook.
CREATE TABLE inbox_events (
  event_id uuid PRIMARY KEY,
  payload jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);

-- One webhook per event. `body` holds the exact bytes sent on every attempt (serialized once, on receipt).
-- `series` counts resends; `attempts_made` counts attempts of the current series (1..8).
-- A worker owns a row while `lease_until` is in the future; a crashed worker's lease simply runs out.
CREATE TABLE deliveries (
  id uuid PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  event_id uuid NOT NULL UNIQUE REFERENCES inbox_events (event_id),
  webhook_id text NOT NULL,
  event text NOT NULL,
  merchant_id uuid NOT NULL,
  shop_id bigint NOT NULL,
  payment_link_id uuid NOT NULL,
  body bytea NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  series integer NOT NULL DEFAULT 1,
  attempts_made integer NOT NULL DEFAULT 0 CHECK (attempts_made BETWEEN 0 AND 8),
  next_attempt_at timestamptz,
  lease_until timestamptz,
  lease_token uuid,
  -- The URL of the latest attempt: deliveries that failed there are brought forward when it recovers.
  endpoint text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);

CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_endpoint_waiting ON deliveries (endpoint) WHERE status = 'pending' AND attempts_made > 0;
CREATE INDEX deliveries_by_merchant ON deliveries (merchant_id, seq DESC);
CREATE INDEX deliveries_by_link ON deliveries (payment_link_id, seq DESC);

-- Every attempt ever made, per series, as the delivery log shows it to merchants.
CREATE TABLE delivery_attempts (
  delivery_id uuid NOT NULL REFERENCES deliveries (id),
  series integer NOT NULL,
  attempt integer NOT NULL CHECK (attempt BETWEEN 1 AND 8),
  at timestamptz NOT NULL,
  duration_ms integer NOT NULL CHECK (duration_ms >= 0),
  status_code integer,
  error text,
  response_head bytea,
  endpoint text,
  PRIMARY KEY (delivery_id, series, attempt, at)
);

-- Down Migration
DROP TABLE delivery_attempts;
DROP TABLE deliveries;
DROP TABLE inbox_events;
