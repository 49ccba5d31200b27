-- Up Migration
-- Refunds of paid links (docs/money.md, "Refunds"). A refund is of its link's mode, merchant and shop; it is
-- pending until its provider (or the operator, or the test simulator) settles it succeeded or failed, once.
CREATE TABLE refunds (
  id uuid PRIMARY KEY,
  payment_link_id uuid NOT NULL REFERENCES payment_links (id),
  merchant_id uuid NOT NULL,
  shop_id bigint NOT NULL CHECK (shop_id > 0),
  livemode boolean NOT NULL,
  amount bigint NOT NULL CHECK (amount > 0),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  reason text,
  -- The buyer's address on the link's crypto network; null for a refund through the provider (SBP, no method).
  destination text,
  provider text NOT NULL,
  -- The provider's id once it accepted the refund: its callbacks name the refund by it.
  gateway_refund_id text,
  failure_reason text,
  -- Set for the refund of a late payment (an operator's resolve): its money never touched the shop's balance.
  late_payment_id uuid REFERENCES late_payments (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT refunds_failure_reason_iff_failed CHECK (failure_reason IS NULL OR status = 'failed')
);

-- A provider's callback names the refund by its own id; one id is one refund of that provider.
CREATE UNIQUE INDEX refunds_provider_gateway_refund_id_key ON refunds (provider, gateway_refund_id) WHERE gateway_refund_id IS NOT NULL;
-- The merchant's lists, per mode, newest first with the keyset of the link lists; a link's refunds (its page).
CREATE INDEX refunds_merchant_mode_created_idx ON refunds (merchant_id, livemode, created_at DESC, id DESC);
CREATE INDEX refunds_shop_mode_created_idx ON refunds (shop_id, livemode, created_at DESC, id DESC);
CREATE INDEX refunds_link_created_idx ON refunds (payment_link_id, created_at DESC, id DESC);
CREATE INDEX refunds_late_payment_idx ON refunds (late_payment_id) WHERE late_payment_id IS NOT NULL;

-- What a link has given back: succeeded refunds, and pending ones, which hold their share of the link until they
-- settle. Moved only by a refund's own transaction, under the link's row lock; the CHECK is the last word that
-- concurrent refunds never pass the link's amount. Adding defaulted columns rewrites nothing.
ALTER TABLE payment_links
  ADD COLUMN amount_refunded bigint NOT NULL DEFAULT 0 CHECK (amount_refunded >= 0),
  ADD COLUMN amount_refund_pending bigint NOT NULL DEFAULT 0 CHECK (amount_refund_pending >= 0),
  ADD CONSTRAINT payment_links_refunds_within_amount CHECK (amount_refunded + amount_refund_pending <= amount);

-- Down Migration
ALTER TABLE payment_links
  DROP CONSTRAINT payment_links_refunds_within_amount,
  DROP COLUMN amount_refund_pending,
  DROP COLUMN amount_refunded;
DROP TABLE refunds;
