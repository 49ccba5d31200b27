-- Up Migration
-- Money is integer kopecks. The rates that produced the amounts are kept on the link (crypto_bps and
-- sbp_bps) so a later method selection can recompute them without asking the shops service again.
CREATE TABLE payment_links (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL,
  shop_id bigint NOT NULL CHECK (shop_id > 0),
  order_id text,
  description text,
  currency text NOT NULL DEFAULT 'RUB' CHECK (currency = 'RUB'),
  amount bigint NOT NULL CHECK (amount > 0),
  fee_bps integer NOT NULL CHECK (fee_bps BETWEEN 0 AND 10000),
  fee_percent_bp integer NOT NULL CHECK (fee_percent_bp BETWEEN 0 AND 10000),
  crypto_bps integer NOT NULL CHECK (crypto_bps BETWEEN 0 AND 10000),
  sbp_bps integer NOT NULL CHECK (sbp_bps BETWEEN 0 AND 10000),
  fee_payer text NOT NULL CHECK (fee_payer IN ('merchant', 'client', 'split')),
  payer_amount bigint NOT NULL CHECK (payer_amount >= amount),
  merchant_credit bigint NOT NULL CHECK (merchant_credit >= 0 AND merchant_credit <= amount),
  platform_revenue bigint NOT NULL CHECK (platform_revenue >= 0),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'paid', 'expired', 'canceled', 'failed')),
  gateway_provider text,
  gateway_payment_id text,
  to_currency text,
  network text,
  deposit_address text,
  payer_currency text,
  payer_crypto_amount text,
  qr text,
  expires_at timestamptz NOT NULL,
  paid_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- The money invariant of the decisions: what the buyer pays minus what the merchant gets is the fee.
  CONSTRAINT payment_links_money_invariant CHECK (payer_amount - merchant_credit = platform_revenue),
  CONSTRAINT payment_links_paid_at_iff_paid CHECK ((status = 'paid') = (paid_at IS NOT NULL)),
  CONSTRAINT payment_links_expires_after_created CHECK (expires_at > created_at)
);

-- The list: newest first with keyset pagination on (created_at, id).
CREATE INDEX payment_links_merchant_created_idx ON payment_links (merchant_id, created_at DESC, id DESC);
-- The expiry sweeper and expire-on-read only ever look at pending links.
CREATE INDEX payment_links_pending_expiry_idx ON payment_links (expires_at) WHERE status = 'pending';
CREATE INDEX payment_links_merchant_order_idx ON payment_links (merchant_id, order_id);
-- Gateway callbacks find the link by the provider's payment id.
CREATE UNIQUE INDEX payment_links_gateway_payment_key ON payment_links (gateway_provider, gateway_payment_id)
  WHERE gateway_payment_id IS NOT NULL;

-- Down Migration
DROP TABLE payment_links;
