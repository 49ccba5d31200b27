-- Up Migration
-- API keys become things a merchant manages: an id to name one by (the public key stays the primary key the
-- hot path looks up), a label, when it was last used, and when a reissued key's grace period ends.
ALTER TABLE api_keys
  ADD COLUMN id uuid,
  ADD COLUMN label text,
  ADD COLUMN last_used_at timestamptz,
  ADD COLUMN expires_at timestamptz;
UPDATE api_keys SET id = gen_random_uuid();
ALTER TABLE api_keys ALTER COLUMN id SET DEFAULT gen_random_uuid(), ALTER COLUMN id SET NOT NULL;
CREATE UNIQUE INDEX api_keys_id_key ON api_keys (id);
CREATE INDEX api_keys_merchant_created_idx ON api_keys (merchant_id, created_at DESC);

-- A password change moves the epoch on; a session remembers the epoch it was opened in and is refused once the
-- account's differs. The account row is read on every session request, so this bites at once on every replica.
ALTER TABLE merchants ADD COLUMN session_epoch integer NOT NULL DEFAULT 0;

-- Credential changes and sign-ins from new addresses: ids and public keys only, never a secret.
CREATE TABLE audit_events (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  type text NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  ip text,
  subject text
);
-- Newest first per merchant, paged by seq.
CREATE INDEX audit_events_merchant_seq_idx ON audit_events (merchant_id, seq DESC);

-- Append-only: a log that can be edited proves nothing.
CREATE FUNCTION refuse_audit_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_audit_event_change();

-- The client addresses each merchant has signed in from: a sign-in from any other is an audit event.
CREATE TABLE merchant_sign_in_addresses (
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  ip text NOT NULL,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_id, ip)
);

-- Down Migration
DROP TABLE merchant_sign_in_addresses;
DROP TRIGGER audit_events_append_only ON audit_events;
DROP FUNCTION refuse_audit_event_change();
DROP TABLE audit_events;
ALTER TABLE merchants DROP COLUMN session_epoch;
DROP INDEX api_keys_merchant_created_idx;
DROP INDEX api_keys_id_key;
ALTER TABLE api_keys DROP COLUMN expires_at, DROP COLUMN last_used_at, DROP COLUMN label, DROP COLUMN id;
