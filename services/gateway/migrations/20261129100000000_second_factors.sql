-- Up Migration
-- A user's TOTP (RFC 6238): the secret sealed with TWO_FACTOR_SECRET_KEY (AES-256-GCM, never stored in clear), on
-- from `confirmed_at`; until then an enrollment waits for its first code. `last_used_step` is the newest time step a
-- code was taken for: a code of that step or an older one is refused, so each code works once (docs/adr/0028).
CREATE TABLE user_totp (
  user_id uuid PRIMARY KEY REFERENCES users (id),
  secret_box bytea NOT NULL,
  confirmed_at timestamptz,
  last_used_step bigint,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Recovery codes: only their SHA-256 (80 random bits each: a slow hash adds nothing a lookup by hash needs), each
-- used once; a new set replaces the whole old one.
CREATE TABLE user_recovery_codes (
  user_id uuid NOT NULL REFERENCES users (id),
  code_sha256 bytea NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, code_sha256)
);

-- The account's policy: every member needs a second factor; one without is signed in only to enroll.
ALTER TABLE merchants ADD COLUMN require_two_factor boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE merchants DROP COLUMN require_two_factor;
DROP TABLE user_recovery_codes;
DROP TABLE user_totp;
