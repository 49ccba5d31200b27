-- Up Migration
-- A user's passkeys (WebAuthn credentials, docs/adr/0029-passkeys.md), each usable as the second factor. Only the
-- public half is kept: the credential id the authenticator names it by, its COSE public key and its signature
-- counter. Registration and authentication challenges live in Redis (5 minutes, single use), not here.
CREATE TABLE passkeys (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id),
  -- base64url, as WebAuthn's JSON carries it; one credential belongs to one user only.
  credential_id text NOT NULL UNIQUE,
  public_key bytea NOT NULL,
  -- The authenticator's signature counter as last seen: an assertion must move it forward (or both stay 0).
  counter bigint NOT NULL DEFAULT 0 CHECK (counter >= 0),
  -- Hints the browser uses to find the authenticator (usb, nfc, ble, internal, hybrid...).
  transports text[] NOT NULL DEFAULT '{}',
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX passkeys_user_idx ON passkeys (user_id, created_at);

-- Down Migration
DROP TABLE passkeys;
