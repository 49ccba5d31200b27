-- Up Migration
-- Test mode: a key pair acts in the mode its prefix names (pk_live_/sk_live_ or pk_test_/sk_test_). The column
-- says it too, so a key's view and its reissue need not parse prefixes. Every key made before test mode is live.
ALTER TABLE api_keys ADD COLUMN mode text;
UPDATE api_keys SET mode = 'live';
ALTER TABLE api_keys
  ALTER COLUMN mode SET NOT NULL,
  ADD CONSTRAINT api_keys_mode_check CHECK (mode IN ('live', 'test')),
  -- The prefix and the column can never disagree.
  ADD CONSTRAINT api_keys_mode_prefix_check CHECK (starts_with(public_key, 'pk_' || mode || '_'));

-- Down Migration
ALTER TABLE api_keys DROP CONSTRAINT api_keys_mode_prefix_check, DROP CONSTRAINT api_keys_mode_check, DROP COLUMN mode;
