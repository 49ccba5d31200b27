-- Up Migration
CREATE TABLE merchants (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  password_hash text NOT NULL,
  email_confirmed boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX merchants_email_key ON merchants (lower(email));

-- The secret is kept only as its SHA-256: it is 256 random bits, so a slow hash adds nothing.
CREATE TABLE api_keys (
  public_key text PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  secret_sha256 bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_merchant_idx ON api_keys (merchant_id);

-- Down Migration
DROP TABLE api_keys;
DROP TABLE merchants;
