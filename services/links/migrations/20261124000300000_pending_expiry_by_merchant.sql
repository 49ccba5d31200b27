-- Up Migration
-- A merchant's list first expires its own overdue pending links. With only (merchant_id, status, ...) that step read
-- every pending link of the merchant to find the overdue ones; this reads the overdue ones alone.
CREATE INDEX IF NOT EXISTS payment_links_merchant_pending_expiry_idx ON payment_links (merchant_id, expires_at) WHERE status = 'pending';

-- Down Migration
DROP INDEX payment_links_merchant_pending_expiry_idx;
