-- Up Migration
-- Idempotency-Key records leave by whole days (docs/adr/0022-time-partitions-for-growing-tables.md): the table is
-- partitioned by day of created_at, and links' partition upkeep drops a day once its end is 24 hours old, so
-- every record in it is past its 24 hours. No row deletes, no dead rows, no vacuum behind them.
--
-- A partitioned table's unique keys must hold its partition key, so (scope, key_sha256) can no longer be the
-- primary key that made two requests with one key resolve to one record: a key used at 23:59 and again at 00:01
-- would land in two partitions. The rule moves into a trigger: before a record is written, it takes a
-- transaction-level advisory lock of the key and looks for a live record of it (any partition, younger than the
-- TTL). A concurrent request with the key waits on that lock until the first commits or rolls back, then finds
-- its record (the trigger's query takes a fresh snapshot: a VOLATILE function's statements each do, in
-- READ COMMITTED, which every service uses) and fails exactly as the primary key made it fail: SQLSTATE 23505 on
-- constraint idempotency_keys_pkey. Every writer (the create's and the cancel's statements, refunds) keeps its
-- code. A record past the TTL no longer counts: the key is free again, as it was once the row purge had run.
ALTER TABLE idempotency_keys RENAME TO idempotency_keys_unpartitioned;
ALTER INDEX idempotency_keys_pkey RENAME TO idempotency_keys_unpartitioned_pkey;
ALTER TABLE idempotency_keys_unpartitioned RENAME CONSTRAINT idempotency_keys_link_id_fkey TO idempotency_keys_unpartitioned_link_id_fkey;
DROP INDEX idempotency_keys_created_idx;

-- How long a key answers its replay: the decisions' 24 hours, as the gateway's cache keeps it. One definition for
-- the trigger and the reads (links' IdempotencyRepository and RefundRepository).
CREATE FUNCTION idempotency_key_ttl() RETURNS interval LANGUAGE sql IMMUTABLE AS $$ SELECT interval '24 hours' $$;

CREATE TABLE idempotency_keys (
  scope text NOT NULL,
  key_sha256 text NOT NULL CHECK (key_sha256 ~ '^[0-9a-f]{64}$'),
  fingerprint text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
  link_id uuid NOT NULL REFERENCES payment_links (id),
  response json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- The index of the lookups by key (one probe per partition of the last day); uniqueness is the trigger's.
  CONSTRAINT idempotency_keys_record PRIMARY KEY (scope, key_sha256, created_at)
) PARTITION BY RANGE (created_at);

CREATE FUNCTION idempotency_key_unused() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('idempotency_keys:' || NEW.scope || ':' || NEW.key_sha256, 0));
  IF EXISTS (SELECT 1 FROM idempotency_keys
              WHERE scope = NEW.scope AND key_sha256 = NEW.key_sha256 AND created_at > NEW.created_at - idempotency_key_ttl()) THEN
    RAISE unique_violation USING
      MESSAGE = 'duplicate key value violates unique constraint "idempotency_keys_pkey"',
      CONSTRAINT = 'idempotency_keys_pkey',
      TABLE = 'idempotency_keys';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER idempotency_key_unused BEFORE INSERT ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION idempotency_key_unused();

-- Day partitions from yesterday to a week ahead (the upkeep keeps them ahead from then on), and one for every day
-- that still holds a record: every record moves over (those past the TTL answer nothing and go with their day).
DO $$
DECLARE
  day date;
BEGIN
  FOR day IN
    SELECT d::date FROM generate_series((now() AT TIME ZONE 'UTC')::date - 1, (now() AT TIME ZONE 'UTC')::date + 7, interval '1 day') AS d
    UNION
    SELECT DISTINCT (created_at AT TIME ZONE 'UTC')::date FROM idempotency_keys_unpartitioned
  LOOP
    EXECUTE format(
      'CREATE TABLE IF NOT EXISTS %I PARTITION OF idempotency_keys FOR VALUES FROM (%L) TO (%L)',
      'idempotency_keys_p' || to_char(day, 'YYYYMMDD'),
      day::text || ' 00:00:00+00',
      (day + 1)::text || ' 00:00:00+00'
    );
  END LOOP;
END
$$;

-- Moved without the trigger: the old primary key already made each key unique.
ALTER TABLE idempotency_keys DISABLE TRIGGER idempotency_key_unused;
INSERT INTO idempotency_keys (scope, key_sha256, fingerprint, link_id, response, created_at)
SELECT scope, key_sha256, fingerprint, link_id, response, created_at FROM idempotency_keys_unpartitioned;
ALTER TABLE idempotency_keys ENABLE TRIGGER idempotency_key_unused;
DROP TABLE idempotency_keys_unpartitioned;

-- Down Migration
CREATE TABLE idempotency_keys_unpartitioned (
  scope text NOT NULL,
  key_sha256 text NOT NULL CHECK (key_sha256 ~ '^[0-9a-f]{64}$'),
  fingerprint text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
  link_id uuid NOT NULL REFERENCES payment_links (id),
  response json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, key_sha256)
);
-- A key used again after its TTL has two records: the newest is the one that answers.
INSERT INTO idempotency_keys_unpartitioned (scope, key_sha256, fingerprint, link_id, response, created_at)
SELECT DISTINCT ON (scope, key_sha256) scope, key_sha256, fingerprint, link_id, response, created_at
  FROM idempotency_keys ORDER BY scope, key_sha256, created_at DESC;
DROP TABLE idempotency_keys;
DROP FUNCTION idempotency_key_unused();
DROP FUNCTION idempotency_key_ttl();
ALTER TABLE idempotency_keys_unpartitioned RENAME TO idempotency_keys;
ALTER INDEX idempotency_keys_unpartitioned_pkey RENAME TO idempotency_keys_pkey;
ALTER TABLE idempotency_keys RENAME CONSTRAINT idempotency_keys_unpartitioned_link_id_fkey TO idempotency_keys_link_id_fkey;
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
