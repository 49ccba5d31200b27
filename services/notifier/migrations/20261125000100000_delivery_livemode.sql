-- Up Migration
-- Test mode (docs/test-mode.md): a delivery belongs to the mode of its event (a test link's payment, or a webhook.test
-- sent with a test credential), and each mode's delivery log shows only its own. Every delivery stored before
-- test mode was live; the default backfills that once and is dropped, so no insert can forget the mode.
ALTER TABLE deliveries ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE deliveries ALTER COLUMN livemode DROP DEFAULT;

-- Every merchant's list now names its mode, so the mode sits in the merchant indexes right after the merchant:
-- a live list walks no test deliveries (a test integration can write many more than the shop's live payments).
-- The list by link keeps its index: a link, and so each of its deliveries, is of one mode.
DROP INDEX deliveries_by_merchant;
DROP INDEX deliveries_by_merchant_shop;
DROP INDEX deliveries_by_merchant_status;
CREATE INDEX deliveries_by_merchant ON deliveries (merchant_id, livemode, seq DESC);
CREATE INDEX deliveries_by_merchant_shop ON deliveries (merchant_id, livemode, shop_id, seq DESC);
CREATE INDEX deliveries_by_merchant_status ON deliveries (merchant_id, livemode, status, seq DESC);
-- A merchant's modes are far from even (a big shop's live payments beside a few tests, or an integration that
-- has written thousands of tests and no live payment yet). Without this the planner multiplies the merchant's
-- share of the table by the mode's share of it, and for a big merchant's rare mode it walks the table backwards
-- by seq, filtering out thousands of rows per page (seen in EXPLAIN), instead of reading the index above.
CREATE STATISTICS deliveries_merchant_mode (mcv) ON merchant_id, livemode FROM deliveries;

-- Down Migration
-- Test deliveries have no place in a log without modes: they (and their attempts) are dropped.
DROP STATISTICS deliveries_merchant_mode;
DROP INDEX deliveries_by_merchant_status;
DROP INDEX deliveries_by_merchant_shop;
DROP INDEX deliveries_by_merchant;
CREATE INDEX deliveries_by_merchant ON deliveries (merchant_id, seq DESC);
CREATE INDEX deliveries_by_merchant_shop ON deliveries (merchant_id, shop_id, seq DESC);
CREATE INDEX deliveries_by_merchant_status ON deliveries (merchant_id, status, seq DESC);
DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE NOT livemode);
DELETE FROM deliveries WHERE NOT livemode;
ALTER TABLE deliveries DROP COLUMN livemode;
