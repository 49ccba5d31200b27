-- Up Migration
-- A user signs in; an account (a row of `merchants`: shops, links, keys, balance) is run by its members. Email,
-- password and session epoch move from the account to the user; the account keeps its email as its contact
-- address (the email it was opened with) and gains a name.
CREATE TABLE users (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  password_hash text NOT NULL,
  email_confirmed boolean NOT NULL DEFAULT false,
  language text NOT NULL DEFAULT 'ru' CHECK (language IN ('ru', 'en')),
  -- A password change or reset moves it on: every session opened in an earlier epoch has ended.
  session_epoch integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE memberships (
  user_id uuid NOT NULL REFERENCES users (id),
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'finance', 'support', 'viewer')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, merchant_id)
);
CREATE INDEX memberships_merchant_idx ON memberships (merchant_id, role);

-- Each merchant becomes an account with one user, its owner, with the same email and password. The user takes the
-- merchant's id: a session stored before users existed names only the merchant, and so still names its user.
INSERT INTO users (id, email, password_hash, email_confirmed, session_epoch, created_at)
  SELECT id, email, password_hash, email_confirmed, session_epoch, created_at FROM merchants;
INSERT INTO memberships (user_id, merchant_id, role, created_at) SELECT id, id, 'owner', created_at FROM merchants;

ALTER TABLE merchants ADD COLUMN name text;
UPDATE merchants SET name = email;
ALTER TABLE merchants
  ALTER COLUMN name SET NOT NULL,
  DROP COLUMN password_hash,
  DROP COLUMN email_confirmed,
  DROP COLUMN session_epoch;

-- Single-use tokens mailed to a user (email confirmation, password reset); only their SHA-256 is kept (256 random
-- bits: a slow hash adds nothing). Used or expired ones are refused alike.
CREATE TABLE user_tokens (
  token_sha256 bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id),
  purpose text NOT NULL CHECK (purpose IN ('confirm_email', 'password_reset')),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX user_tokens_user_idx ON user_tokens (user_id, purpose);

-- Invitations to an account: a 72-hour single-use link mailed to an email, with the role it grants.
CREATE TABLE invitations (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'finance', 'support', 'viewer')),
  token_sha256 bytea NOT NULL UNIQUE,
  invited_by uuid NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX invitations_merchant_idx ON invitations (merchant_id, created_at DESC);

-- The addresses a user has signed in from (per user now, not per account).
ALTER TABLE merchant_sign_in_addresses RENAME TO user_sign_in_addresses;
ALTER TABLE user_sign_in_addresses RENAME COLUMN merchant_id TO user_id;
ALTER TABLE user_sign_in_addresses DROP CONSTRAINT merchant_sign_in_addresses_merchant_id_fkey;
ALTER TABLE user_sign_in_addresses ADD CONSTRAINT user_sign_in_addresses_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id);

-- Who did it: the user behind a session's change (null for an API key or the operator).
ALTER TABLE audit_events ADD COLUMN user_id uuid, ADD COLUMN role text, ADD COLUMN user_agent text;

-- Down Migration
ALTER TABLE audit_events DROP COLUMN user_agent, DROP COLUMN role, DROP COLUMN user_id;
ALTER TABLE user_sign_in_addresses DROP CONSTRAINT user_sign_in_addresses_user_id_fkey;
DELETE FROM user_sign_in_addresses a WHERE NOT EXISTS (SELECT 1 FROM merchants m WHERE m.id = a.user_id);
ALTER TABLE user_sign_in_addresses RENAME COLUMN user_id TO merchant_id;
ALTER TABLE user_sign_in_addresses RENAME TO merchant_sign_in_addresses;
ALTER TABLE merchant_sign_in_addresses
  ADD CONSTRAINT merchant_sign_in_addresses_merchant_id_fkey FOREIGN KEY (merchant_id) REFERENCES merchants (id);
DROP TABLE invitations;
DROP TABLE user_tokens;
-- Each account gets back the password of one of its owners.
ALTER TABLE merchants
  ADD COLUMN password_hash text,
  ADD COLUMN email_confirmed boolean NOT NULL DEFAULT false,
  ADD COLUMN session_epoch integer NOT NULL DEFAULT 0;
UPDATE merchants m SET password_hash = u.password_hash, email_confirmed = u.email_confirmed, session_epoch = u.session_epoch
  FROM (SELECT DISTINCT ON (ms.merchant_id) ms.merchant_id, u.* FROM memberships ms JOIN users u ON u.id = ms.user_id
         WHERE ms.role = 'owner' ORDER BY ms.merchant_id, ms.created_at) u
 WHERE u.merchant_id = m.id;
UPDATE merchants SET password_hash = 'scrypt$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' WHERE password_hash IS NULL;
ALTER TABLE merchants ALTER COLUMN password_hash SET NOT NULL, DROP COLUMN name;
DROP TABLE memberships;
DROP TABLE users;
