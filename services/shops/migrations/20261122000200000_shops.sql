-- Up Migration
CREATE TABLE shops (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The merchant lives in the gateway's schema; services own their data, so no cross-schema foreign key.
  merchant_id uuid NOT NULL,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('approved', 'pending', 'rejected', 'blocked')),
  fee_payer text NOT NULL DEFAULT 'merchant' CHECK (fee_payer IN ('merchant', 'client', 'split')),
  crypto_bps integer NOT NULL DEFAULT 100 CHECK (crypto_bps BETWEEN 0 AND 10000),
  sbp_bps integer NOT NULL DEFAULT 100 CHECK (sbp_bps BETWEEN 0 AND 10000),
  webhook_url text,
  -- AES-256-GCM box (version, nonce, ciphertext, tag): the notifier needs the plain secret to sign, so it
  -- cannot be hashed, and a database dump alone must not reveal it.
  webhook_secret_enc bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX shops_merchant_idx ON shops (merchant_id);

-- A cashier key is 256 random bits, so its SHA-256 is enough; the key itself is never stored.
CREATE TABLE cashier_keys (
  key_sha256 bytea PRIMARY KEY,
  shop_id bigint NOT NULL REFERENCES shops (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX cashier_keys_shop_idx ON cashier_keys (shop_id);

-- Down Migration
DROP TABLE cashier_keys;
DROP TABLE shops;
