-- Up Migration
-- The notifier's growing tables leave by whole partitions, not row deletes (docs/adr/0022-time-partitions-for-growing-tables.md):
-- - `inbox_events` (the events API's record and the inbox's deduplication): by UTC day of `occurred_at`, kept
--   EVENT_RETENTION_DAYS (30). The key becomes (event_id, occurred_at): a redelivered Kafka message carries the
--   same occurred_at, so it meets its first copy in the same partition and ON CONFLICT still drops it. An event
--   whose day has no partition (older than the oldest kept, after a long backlog) lands in the DEFAULT partition,
--   which the event purge empties by row deletes: a rare straggler must not stop the consumer.
-- - `deliveries` (by month of `created_at`) and `delivery_attempts` (by month of `at`), kept DELIVERY_RETENTION_DAYS
--   (90). Months, not days: the delivery log's pages are ordered by `seq`, which no partition bound knows, so each
--   page reads every partition's index; with months that is four or five, with days it would be a hundred.
-- Partitioned tables' keys hold their partition key, and a foreign key to a partitioned table needs its whole
-- key, while a dropped partition runs no ON DELETE: the references (delivery -> event, attempt -> delivery) stay as
-- plain columns. A delivery keeps its body, webhook id and link, so it reads and resends without its event (as it
-- did after the purge set its event_id NULL); readers always go from a delivery to its attempts, never back.
-- Every row moves over, into partitions made for every day (month) that holds some; the upkeep drops those past
-- their retention on its first run.
ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_delivery_id_fkey;
ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_id_fkey;

ALTER TABLE delivery_attempts RENAME TO delivery_attempts_unpartitioned;
ALTER TABLE delivery_attempts_unpartitioned RENAME CONSTRAINT delivery_attempts_pkey TO delivery_attempts_unpartitioned_pkey;

ALTER TABLE deliveries RENAME TO deliveries_unpartitioned;
ALTER TABLE deliveries_unpartitioned RENAME CONSTRAINT deliveries_pkey TO deliveries_unpartitioned_pkey;
ALTER TABLE deliveries_unpartitioned DROP CONSTRAINT deliveries_seq_key, DROP CONSTRAINT deliveries_event_id_key;
DROP INDEX deliveries_due, deliveries_endpoint_waiting, deliveries_by_merchant, deliveries_by_link, deliveries_by_merchant_shop,
  deliveries_by_merchant_status;
DROP STATISTICS deliveries_merchant_mode;

ALTER TABLE inbox_events RENAME TO inbox_events_unpartitioned;
ALTER TABLE inbox_events_unpartitioned RENAME CONSTRAINT inbox_events_pkey TO inbox_events_unpartitioned_pkey;
DROP INDEX inbox_events_by_merchant, inbox_events_by_merchant_shop, inbox_events_by_merchant_type, inbox_events_by_link, inbox_events_oldest;
DROP STATISTICS inbox_events_merchant_mode;

CREATE TABLE inbox_events (
  event_id uuid NOT NULL,
  payload jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  type text NOT NULL,
  merchant_id uuid NOT NULL,
  shop_id bigint NOT NULL,
  payment_link_id uuid NOT NULL,
  livemode boolean NOT NULL,
  occurred_at timestamptz NOT NULL,
  body bytea NOT NULL,
  PRIMARY KEY (event_id, occurred_at)
) PARTITION BY RANGE (occurred_at);
CREATE TABLE inbox_events_default PARTITION OF inbox_events DEFAULT;

-- As before, on every partition. The events API's pages run newest first by occurred_at, the partition key: the
-- planner reads the partitions in order and stops at the page's end, and a cursor's bound prunes the newer ones.
CREATE INDEX inbox_events_by_merchant ON inbox_events (merchant_id, livemode, occurred_at DESC, seq DESC);
CREATE INDEX inbox_events_by_merchant_shop ON inbox_events (merchant_id, livemode, shop_id, occurred_at DESC, seq DESC);
CREATE INDEX inbox_events_by_merchant_type ON inbox_events (merchant_id, livemode, type, occurred_at DESC, seq DESC);
CREATE INDEX inbox_events_by_link ON inbox_events (payment_link_id, occurred_at DESC, seq DESC);
-- Only the stragglers' partition is purged row by row, oldest first.
CREATE INDEX inbox_events_default_oldest ON inbox_events_default (occurred_at);
CREATE STATISTICS inbox_events_merchant_mode (mcv) ON merchant_id, livemode FROM inbox_events;

CREATE TABLE deliveries (
  id uuid NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  -- The event it came from (NULL for webhook.test); its record may be gone past the events' retention.
  event_id uuid,
  webhook_id text NOT NULL,
  event text NOT NULL,
  merchant_id uuid NOT NULL,
  shop_id bigint NOT NULL,
  payment_link_id uuid,
  body bytea NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  series integer NOT NULL DEFAULT 1,
  attempts_made integer NOT NULL DEFAULT 0 CHECK (attempts_made BETWEEN 0 AND 8),
  next_attempt_at timestamptz,
  lease_until timestamptz,
  lease_token uuid,
  endpoint text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  traceparent text,
  livemode boolean NOT NULL,
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
  CONSTRAINT deliveries_event_source CHECK (
    (event = 'webhook.test' AND event_id IS NULL AND payment_link_id IS NULL)
    OR (event <> 'webhook.test' AND payment_link_id IS NOT NULL)
  ),
  -- A delivery id is a fresh UUID: unique on its own in practice; a look-up by id probes each month's index.
  PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_endpoint_waiting ON deliveries (endpoint) WHERE status = 'pending' AND attempts_made > 0;
CREATE INDEX deliveries_by_merchant ON deliveries (merchant_id, livemode, seq DESC);
CREATE INDEX deliveries_by_merchant_shop ON deliveries (merchant_id, livemode, shop_id, seq DESC);
CREATE INDEX deliveries_by_merchant_status ON deliveries (merchant_id, livemode, status, seq DESC);
CREATE INDEX deliveries_by_link ON deliveries (payment_link_id, seq DESC);
CREATE STATISTICS deliveries_merchant_mode (mcv) ON merchant_id, livemode FROM deliveries;

CREATE TABLE delivery_attempts (
  delivery_id uuid NOT NULL,
  series integer NOT NULL,
  attempt integer NOT NULL CHECK (attempt BETWEEN 1 AND 8),
  at timestamptz NOT NULL,
  duration_ms integer NOT NULL CHECK (duration_ms >= 0),
  status_code integer,
  error text,
  response_head bytea,
  endpoint text,
  PRIMARY KEY (delivery_id, series, attempt, at)
) PARTITION BY RANGE (at);

-- Partitions: every day (month) that holds a row, and from yesterday (this month) to a week ahead.
DO $$
DECLARE
  day date;
  month date;
  today date := (now() AT TIME ZONE 'UTC')::date;
BEGIN
  FOR day IN
    SELECT d::date FROM generate_series(today - 1, today + 7, interval '1 day') AS d
    UNION
    SELECT DISTINCT (occurred_at AT TIME ZONE 'UTC')::date FROM inbox_events_unpartitioned
  LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF inbox_events FOR VALUES FROM (%L) TO (%L)',
      'inbox_events_p' || to_char(day, 'YYYYMMDD'), day::text || ' 00:00:00+00', (day + 1)::text || ' 00:00:00+00');
  END LOOP;
  FOR month IN
    SELECT date_trunc('month', today)::date UNION SELECT date_trunc('month', today + 7)::date
    UNION SELECT DISTINCT date_trunc('month', created_at AT TIME ZONE 'UTC')::date FROM deliveries_unpartitioned
  LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF deliveries FOR VALUES FROM (%L) TO (%L)',
      'deliveries_p' || to_char(month, 'YYYYMM'), month::text || ' 00:00:00+00', (month + interval '1 month')::date::text || ' 00:00:00+00');
  END LOOP;
  FOR month IN
    SELECT date_trunc('month', today)::date UNION SELECT date_trunc('month', today + 7)::date
    UNION SELECT DISTINCT date_trunc('month', at AT TIME ZONE 'UTC')::date FROM delivery_attempts_unpartitioned
  LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF delivery_attempts FOR VALUES FROM (%L) TO (%L)',
      'delivery_attempts_p' || to_char(month, 'YYYYMM'), month::text || ' 00:00:00+00', (month + interval '1 month')::date::text || ' 00:00:00+00');
  END LOOP;
END
$$;

-- Every row moves, with its seq (the cursors merchants hold name them); the sequences go on from the highest.
INSERT INTO inbox_events (event_id, payload, received_at, seq, type, merchant_id, shop_id, payment_link_id, livemode, occurred_at, body)
OVERRIDING SYSTEM VALUE
SELECT event_id, payload, received_at, seq, type, merchant_id, shop_id, payment_link_id, livemode, occurred_at, body FROM inbox_events_unpartitioned;
SELECT setval(pg_get_serial_sequence('inbox_events', 'seq'), max(seq)) FROM inbox_events HAVING max(seq) IS NOT NULL;

INSERT INTO deliveries (id, seq, event_id, webhook_id, event, merchant_id, shop_id, payment_link_id, body, status, series, attempts_made,
                        next_attempt_at, lease_until, lease_token, endpoint, created_at, updated_at, traceparent, livemode)
OVERRIDING SYSTEM VALUE
SELECT id, seq, event_id, webhook_id, event, merchant_id, shop_id, payment_link_id, body, status, series, attempts_made,
       next_attempt_at, lease_until, lease_token, endpoint, created_at, updated_at, traceparent, livemode
  FROM deliveries_unpartitioned;
SELECT setval(pg_get_serial_sequence('deliveries', 'seq'), max(seq)) FROM deliveries HAVING max(seq) IS NOT NULL;

INSERT INTO delivery_attempts (delivery_id, series, attempt, at, duration_ms, status_code, error, response_head, endpoint)
SELECT delivery_id, series, attempt, at, duration_ms, status_code, error, response_head, endpoint FROM delivery_attempts_unpartitioned;

DROP TABLE delivery_attempts_unpartitioned;
DROP TABLE deliveries_unpartitioned;
DROP TABLE inbox_events_unpartitioned;
ANALYZE inbox_events, deliveries, delivery_attempts;

-- Down Migration
CREATE TABLE inbox_events_unpartitioned (
  event_id uuid PRIMARY KEY,
  payload jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  type text NOT NULL,
  merchant_id uuid NOT NULL,
  shop_id bigint NOT NULL,
  payment_link_id uuid NOT NULL,
  livemode boolean NOT NULL,
  occurred_at timestamptz NOT NULL,
  body bytea NOT NULL
);
INSERT INTO inbox_events_unpartitioned (event_id, payload, received_at, seq, type, merchant_id, shop_id, payment_link_id, livemode, occurred_at, body)
OVERRIDING SYSTEM VALUE
SELECT event_id, payload, received_at, seq, type, merchant_id, shop_id, payment_link_id, livemode, occurred_at, body FROM inbox_events;
SELECT setval(pg_get_serial_sequence('inbox_events_unpartitioned', 'seq'), max(seq)) FROM inbox_events_unpartitioned HAVING max(seq) IS NOT NULL;

CREATE TABLE deliveries_unpartitioned (
  id uuid PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  event_id uuid UNIQUE REFERENCES inbox_events_unpartitioned (event_id) ON DELETE SET NULL,
  webhook_id text NOT NULL,
  event text NOT NULL,
  merchant_id uuid NOT NULL,
  shop_id bigint NOT NULL,
  payment_link_id uuid,
  body bytea NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  series integer NOT NULL DEFAULT 1,
  attempts_made integer NOT NULL DEFAULT 0 CHECK (attempts_made BETWEEN 0 AND 8),
  next_attempt_at timestamptz,
  lease_until timestamptz,
  lease_token uuid,
  endpoint text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  traceparent text,
  livemode boolean NOT NULL,
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
  CONSTRAINT deliveries_event_source CHECK (
    (event = 'webhook.test' AND event_id IS NULL AND payment_link_id IS NULL)
    OR (event <> 'webhook.test' AND payment_link_id IS NOT NULL)
  )
);
-- A delivery whose event's day was dropped loses its event_id, as the purge's ON DELETE SET NULL did.
INSERT INTO deliveries_unpartitioned (id, seq, event_id, webhook_id, event, merchant_id, shop_id, payment_link_id, body, status, series,
                                      attempts_made, next_attempt_at, lease_until, lease_token, endpoint, created_at, updated_at, traceparent, livemode)
OVERRIDING SYSTEM VALUE
SELECT d.id, d.seq, e.event_id, d.webhook_id, d.event, d.merchant_id, d.shop_id, d.payment_link_id, d.body, d.status, d.series,
       d.attempts_made, d.next_attempt_at, d.lease_until, d.lease_token, d.endpoint, d.created_at, d.updated_at, d.traceparent, d.livemode
  FROM deliveries d LEFT JOIN inbox_events_unpartitioned e ON e.event_id = d.event_id;
SELECT setval(pg_get_serial_sequence('deliveries_unpartitioned', 'seq'), max(seq)) FROM deliveries_unpartitioned HAVING max(seq) IS NOT NULL;

CREATE TABLE delivery_attempts_unpartitioned (
  delivery_id uuid NOT NULL REFERENCES deliveries_unpartitioned (id),
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
-- Attempts whose delivery's month was dropped before theirs have nothing to belong to.
INSERT INTO delivery_attempts_unpartitioned (delivery_id, series, attempt, at, duration_ms, status_code, error, response_head, endpoint)
SELECT a.delivery_id, a.series, a.attempt, a.at, a.duration_ms, a.status_code, a.error, a.response_head, a.endpoint
  FROM delivery_attempts a WHERE EXISTS (SELECT 1 FROM deliveries_unpartitioned d WHERE d.id = a.delivery_id);

DROP TABLE delivery_attempts;
DROP TABLE deliveries;
DROP TABLE inbox_events;

ALTER TABLE inbox_events_unpartitioned RENAME TO inbox_events;
ALTER TABLE inbox_events RENAME CONSTRAINT inbox_events_unpartitioned_pkey TO inbox_events_pkey;
CREATE INDEX inbox_events_by_merchant ON inbox_events (merchant_id, livemode, occurred_at DESC, seq DESC);
CREATE INDEX inbox_events_by_merchant_shop ON inbox_events (merchant_id, livemode, shop_id, occurred_at DESC, seq DESC);
CREATE INDEX inbox_events_by_merchant_type ON inbox_events (merchant_id, livemode, type, occurred_at DESC, seq DESC);
CREATE INDEX inbox_events_by_link ON inbox_events (payment_link_id, occurred_at DESC, seq DESC);
CREATE INDEX inbox_events_oldest ON inbox_events (occurred_at);
CREATE STATISTICS inbox_events_merchant_mode (mcv) ON merchant_id, livemode FROM inbox_events;

ALTER TABLE deliveries_unpartitioned RENAME TO deliveries;
ALTER TABLE deliveries RENAME CONSTRAINT deliveries_unpartitioned_pkey TO deliveries_pkey;
ALTER TABLE deliveries RENAME CONSTRAINT deliveries_unpartitioned_seq_key TO deliveries_seq_key;
ALTER TABLE deliveries RENAME CONSTRAINT deliveries_unpartitioned_event_id_key TO deliveries_event_id_key;
ALTER TABLE deliveries RENAME CONSTRAINT deliveries_unpartitioned_event_id_fkey TO deliveries_event_id_fkey;
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_endpoint_waiting ON deliveries (endpoint) WHERE status = 'pending' AND attempts_made > 0;
CREATE INDEX deliveries_by_merchant ON deliveries (merchant_id, livemode, seq DESC);
CREATE INDEX deliveries_by_merchant_shop ON deliveries (merchant_id, livemode, shop_id, seq DESC);
CREATE INDEX deliveries_by_merchant_status ON deliveries (merchant_id, livemode, status, seq DESC);
CREATE INDEX deliveries_by_link ON deliveries (payment_link_id, seq DESC);
CREATE STATISTICS deliveries_merchant_mode (mcv) ON merchant_id, livemode FROM deliveries;

ALTER TABLE delivery_attempts_unpartitioned RENAME TO delivery_attempts;
ALTER TABLE delivery_attempts RENAME CONSTRAINT delivery_attempts_unpartitioned_pkey TO delivery_attempts_pkey;
ALTER TABLE delivery_attempts RENAME CONSTRAINT delivery_attempts_unpartitioned_delivery_id_fkey TO delivery_attempts_delivery_id_fkey;
