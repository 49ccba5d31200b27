-- Up Migration
-- Every link lives in one mode, live or test (docs/test-mode.md), and a merchant reads each mode apart. The links written
-- before test mode are live; the default only backfills them and is dropped at once, so no insert can leave a link's
-- mode to chance.
ALTER TABLE payment_links ADD COLUMN IF NOT EXISTS livemode boolean NOT NULL DEFAULT true;
ALTER TABLE payment_links ALTER COLUMN livemode DROP DEFAULT;

-- A merchant's list (and the expiry of its own overdue links on read) is always within one mode: with the mode after
-- the merchant (or shop) in each index, a page of the mode a merchant rarely uses is still a keyset walk, not a
-- filter over the other mode's whole history. They replace the mode-less indexes of the same shape.
-- Building them takes a lock that holds link writes back for a few seconds per million links. On a large table,
-- create them beforehand with CREATE INDEX CONCURRENTLY and these names; this then does nothing.
CREATE INDEX IF NOT EXISTS payment_links_merchant_mode_created_idx ON payment_links (merchant_id, livemode, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS payment_links_merchant_mode_status_created_idx ON payment_links (merchant_id, livemode, status, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS payment_links_shop_mode_created_idx ON payment_links (shop_id, livemode, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS payment_links_merchant_mode_order_idx ON payment_links (merchant_id, livemode, order_id);
CREATE INDEX IF NOT EXISTS payment_links_merchant_mode_pending_expiry_idx ON payment_links (merchant_id, livemode, expires_at) WHERE status = 'pending';
DROP INDEX IF EXISTS payment_links_merchant_created_idx;
DROP INDEX IF EXISTS payment_links_merchant_status_created_idx;
DROP INDEX IF EXISTS payment_links_shop_created_idx;
DROP INDEX IF EXISTS payment_links_merchant_order_idx;
DROP INDEX IF EXISTS payment_links_merchant_pending_expiry_idx;

-- Down Migration
CREATE INDEX IF NOT EXISTS payment_links_merchant_pending_expiry_idx ON payment_links (merchant_id, expires_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS payment_links_merchant_order_idx ON payment_links (merchant_id, order_id);
CREATE INDEX IF NOT EXISTS payment_links_shop_created_idx ON payment_links (shop_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS payment_links_merchant_status_created_idx ON payment_links (merchant_id, status, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS payment_links_merchant_created_idx ON payment_links (merchant_id, created_at DESC, id DESC);
DROP INDEX payment_links_merchant_mode_pending_expiry_idx;
DROP INDEX payment_links_merchant_mode_order_idx;
DROP INDEX payment_links_shop_mode_created_idx;
DROP INDEX payment_links_merchant_mode_status_created_idx;
DROP INDEX payment_links_merchant_mode_created_idx;
ALTER TABLE payment_links DROP COLUMN livemode;
