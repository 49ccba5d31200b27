-- Up Migration
-- A filtered list stays a keyset walk of an index however long the merchant's history: without these, a
-- filter on a status the merchant rarely has (`failed`, or `pending` among a million paid links) or on one of
-- several shops (every cashier-key list) read the merchant's whole history to fill one page.
-- Building them takes a lock that holds link writes back for a few seconds per million links. On a large
-- table, create them beforehand with CREATE INDEX CONCURRENTLY and these names; this then does nothing.
CREATE INDEX IF NOT EXISTS payment_links_merchant_status_created_idx ON payment_links (merchant_id, status, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS payment_links_shop_created_idx ON payment_links (shop_id, created_at DESC, id DESC);

-- Down Migration
DROP INDEX payment_links_shop_created_idx;
DROP INDEX payment_links_merchant_status_created_idx;
