-- Up Migration
-- The daily report (ADR 40) reads a shop's day from the ledger by (shop, mode, created_at). The statement's
-- partial index serves the types that move the balance; an unresolved payment's refund to its buyer and that
-- refund's failure (`late_refund`, `late_refund_failed`) move only the platform's accounts and had no index by
-- shop, so a report would scan every such row. They are few, so the index is small.
-- On a large ledger, create it beforehand with CREATE INDEX CONCURRENTLY and this name; this then does nothing.
CREATE INDEX IF NOT EXISTS ledger_transactions_shop_resolution_idx ON ledger_transactions (shop_id, livemode, created_at, id)
  WHERE type IN ('late_refund', 'late_refund_failed');

-- Down Migration
DROP INDEX ledger_transactions_shop_resolution_idx;
