-- Up Migration
-- A shop has a cashier key per mode (docs/test-mode.md): svc_live_… for real payments and svc_test_… for test links.
-- Every key issued before test mode is a live one. The column has no default afterwards, so a key can only be
-- stored by saying which mode it is for.
ALTER TABLE cashier_keys ADD COLUMN mode text NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test'));
ALTER TABLE cashier_keys ALTER COLUMN mode DROP DEFAULT;

-- One active key per shop and mode: a reissue revokes its mode's key before it adds the new one (under the shop's
-- row lock), so this holds already; the index makes a second active key of a mode impossible rather than unlikely.
CREATE UNIQUE INDEX cashier_keys_one_active_per_mode ON cashier_keys (shop_id, mode) WHERE revoked_at IS NULL;

-- Down Migration
DROP INDEX cashier_keys_one_active_per_mode;
ALTER TABLE cashier_keys DROP COLUMN mode;
