-- Up Migration
-- The outbox splits in two (docs/adr/0018-outbox-record-and-pending-queue.md):
-- - `outbox`, the append-only record of every event written, never updated: partitioned by day of created_at,
--   so events past OUTBOX_RETENTION_DAYS leave by dropping a day's partition (links' partition upkeep).
-- - `outbox_pending`, a narrow queue of the ids not yet published, written with the record by a trigger (so every
--   writer of an event queues it in the same transaction), and left by a delete once Kafka acknowledged.
-- Marking a published event used to UPDATE its whole row (~1.1 KiB with its payload, never a HOT update):
-- a third of Postgres's time during an expiry sweep.
ALTER TABLE outbox RENAME TO outbox_unpartitioned;
ALTER INDEX outbox_pkey RENAME TO outbox_unpartitioned_pkey;
ALTER INDEX outbox_unpublished_idx RENAME TO outbox_unpartitioned_unpublished_idx;

CREATE TABLE outbox (
  id uuid NOT NULL,
  topic text NOT NULL,
  -- Kafka message key: the payment link id, so one link's events keep their order in one partition.
  message_key text NOT NULL,
  payload jsonb NOT NULL,
  headers jsonb NOT NULL DEFAULT '{}'::jsonb,
  traceparent text,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- A partitioned table's key includes its partition key; an event id is a fresh UUID, unique on its own.
  PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);

CREATE TABLE outbox_pending (
  id uuid PRIMARY KEY,
  -- The record's created_at: the relay's order and age, and the record's partition.
  created_at timestamptz NOT NULL
);
CREATE INDEX outbox_pending_age_idx ON outbox_pending (created_at, id);

CREATE FUNCTION outbox_queue_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO outbox_pending (id, created_at) SELECT id, created_at FROM written;
  RETURN NULL;
END
$$;
-- One statement-level trigger: an expiry batch of 1,000 events queues them in one INSERT.
CREATE TRIGGER outbox_queue_written AFTER INSERT ON outbox REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION outbox_queue_written();

-- Day partitions from yesterday to a week ahead (the upkeep keeps them ahead from then on), and one for every day
-- that still holds an unpublished event or one from the last seven days (the default retention), which move over.
DO $$
DECLARE
  day date;
BEGIN
  FOR day IN
    SELECT d::date FROM generate_series((now() AT TIME ZONE 'UTC')::date - 1, (now() AT TIME ZONE 'UTC')::date + 7, interval '1 day') AS d
    UNION
    SELECT DISTINCT (created_at AT TIME ZONE 'UTC')::date FROM outbox_unpartitioned
     WHERE published_at IS NULL OR created_at > now() - interval '7 days'
  LOOP
    EXECUTE format(
      'CREATE TABLE IF NOT EXISTS %I PARTITION OF outbox FOR VALUES FROM (%L) TO (%L)',
      'outbox_p' || to_char(day, 'YYYYMMDD'),
      day::text || ' 00:00:00+00',
      (day + 1)::text || ' 00:00:00+00'
    );
  END LOOP;
END
$$;

INSERT INTO outbox (id, topic, message_key, payload, headers, traceparent, created_at)
SELECT id, topic, message_key, payload, headers, traceparent, created_at FROM outbox_unpartitioned
 WHERE published_at IS NULL OR created_at > now() - interval '7 days';
-- Those already published leave the queue the trigger just filled.
DELETE FROM outbox_pending p USING outbox_unpartitioned o WHERE o.id = p.id AND o.published_at IS NOT NULL;
DROP TABLE outbox_unpartitioned;

-- Down Migration
CREATE TABLE outbox_unpartitioned (
  id uuid PRIMARY KEY,
  topic text NOT NULL,
  message_key text NOT NULL,
  payload jsonb NOT NULL,
  headers jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz,
  traceparent text
);
INSERT INTO outbox_unpartitioned (id, topic, message_key, payload, headers, created_at, published_at, traceparent)
SELECT o.id, o.topic, o.message_key, o.payload, o.headers, o.created_at,
       CASE WHEN p.id IS NULL THEN o.created_at END, o.traceparent
  FROM outbox o LEFT JOIN outbox_pending p ON p.id = o.id;
DROP TABLE outbox_pending;
DROP TABLE outbox;
DROP FUNCTION outbox_queue_written();
ALTER TABLE outbox_unpartitioned RENAME TO outbox;
ALTER INDEX outbox_unpartitioned_pkey RENAME TO outbox_pkey;
CREATE INDEX outbox_unpublished_idx ON outbox (created_at, id) WHERE published_at IS NULL;
