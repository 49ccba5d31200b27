-- Up Migration
-- An operator resolves each late payment once (docs/money.md, "Late payments"): settles it to the shop (posted as a paid
-- link, type late_payment) or refunds it to the buyer (clearing to clearing). The record keeps what the link would
-- have credited and earned when the payment arrived, so a settle posts exactly that, whatever happens later.
ALTER TABLE late_payments
  ADD COLUMN merchant_credit bigint CHECK (merchant_credit >= 0),
  ADD COLUMN platform_revenue bigint CHECK (platform_revenue >= 0),
  -- null until resolved; set once, by a conditional update (resolution IS NULL), in the resolution's transaction.
  ADD COLUMN resolution text CHECK (resolution IN ('settled', 'refunded')),
  ADD COLUMN resolved_at timestamptz,
  ADD CONSTRAINT late_payments_resolved_check CHECK ((resolution IS NULL) = (resolved_at IS NULL));

-- A link never changes once it left pending, and every late payment met a link that had: its amounts then are its amounts now.
UPDATE late_payments p SET merchant_credit = l.merchant_credit, platform_revenue = l.platform_revenue
  FROM payment_links l WHERE l.id = p.link_id;

ALTER TABLE late_payments ALTER COLUMN merchant_credit SET NOT NULL, ALTER COLUMN platform_revenue SET NOT NULL;

-- Down Migration
ALTER TABLE late_payments DROP CONSTRAINT late_payments_resolved_check,
  DROP COLUMN resolved_at, DROP COLUMN resolution, DROP COLUMN platform_revenue, DROP COLUMN merchant_credit;
