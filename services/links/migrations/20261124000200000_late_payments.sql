-- Up Migration
-- Payments a provider confirmed for a link that had already left `pending` (expired, canceled, failed, or
-- paid by another payment): the buyer's money arrived, the link stays as it was, and an operator refunds or
-- settles it by hand (docs/operations.md, "Late payments"). A row is written only from the link as it stands
-- at that moment (its state is copied, not referenced), so a later look shows what the callback met.
CREATE TABLE late_payments (
  id uuid PRIMARY KEY,
  link_id uuid NOT NULL REFERENCES payment_links (id),
  -- The link's state when the payment arrived; never `pending` (a pending link is settled instead).
  link_status text NOT NULL CHECK (link_status IN ('paid', 'expired', 'canceled', 'failed')),
  provider text NOT NULL,
  gateway_payment_id text NOT NULL,
  -- What the buyer was asked to pay, in kopecks, as the link held it then.
  payer_amount bigint NOT NULL CHECK (payer_amount > 0),
  received_at timestamptz NOT NULL,
  -- One row per provider payment: a repeated callback inserts nothing (ON CONFLICT DO NOTHING).
  CONSTRAINT late_payments_payment_key UNIQUE (provider, gateway_payment_id)
);

-- `payment:late --since` reads the newest ones.
CREATE INDEX late_payments_received_idx ON late_payments (received_at);
CREATE INDEX late_payments_link_idx ON late_payments (link_id);

-- Down Migration
DROP TABLE late_payments;
