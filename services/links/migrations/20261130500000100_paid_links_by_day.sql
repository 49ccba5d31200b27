-- Up Migration
-- The dashboard's Home page adds up the links paid each day of the last 30 (docs/reports.md) by `paid_at`, which no
-- index had: a paid link's `created_at` can be up to 30 days before its payment, so the created_at indexes would
-- read twice the window and filter. Partial on paid links, so only a paid link writes an entry, once.
-- Building them takes a lock that holds link writes back for a few seconds per million links. On a large table,
-- create them beforehand with CREATE INDEX CONCURRENTLY and these names; this then does nothing.
CREATE INDEX IF NOT EXISTS payment_links_shop_mode_paid_idx ON payment_links (shop_id, livemode, paid_at) WHERE status = 'paid';
CREATE INDEX IF NOT EXISTS payment_links_merchant_mode_paid_idx ON payment_links (merchant_id, livemode, paid_at) WHERE status = 'paid';

-- Down Migration
DROP INDEX payment_links_merchant_mode_paid_idx;
DROP INDEX payment_links_shop_mode_paid_idx;
