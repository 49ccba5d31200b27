-- Up Migration
-- Idempotency-Keys kept by the owner of the state: a record is written in the same statement as the create
-- or the cancel it answers, so a link exists with its key or not at all. The primary key is what makes two
-- requests with one key resolve to one link: the second insert waits for the first to commit, then fails, and
-- its request answers with the first one's link. The key itself never leaves the gateway, only its SHA-256.
CREATE TABLE idempotency_keys (
  -- Merchant (and shop, for a cashier key) and route, as derived from the verified identity.
  scope text NOT NULL,
  key_sha256 text NOT NULL CHECK (key_sha256 ~ '^[0-9a-f]{64}$'),
  -- SHA-256 of what the request asked for; the same key with another fingerprint is a conflict.
  fingerprint text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
  link_id uuid NOT NULL REFERENCES payment_links (id),
  -- The link as the first answer showed it (a payment_links row as JSON): a replay answers the same body
  -- however the link moved since.
  response json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, key_sha256)
);

-- The purge deletes records past their 24 hours, oldest first.
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

-- Down Migration
DROP TABLE idempotency_keys;
