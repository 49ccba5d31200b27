-- Up Migration
-- Each select of a live (or test) link is an attempt at its provider (docs/product-decisions.md, "attempts"): attempt n
-- of a link has the provider order id `<link id>-<n>`. It is written, and committed, before the provider is called;
-- the provider's answer fills it after. A link keeps the number of attempts it made, so the next number is taken
-- with the link's row in one statement and two selects never share one.
ALTER TABLE payment_links ADD COLUMN attempts_made integer NOT NULL DEFAULT 0;

CREATE TABLE payment_attempts (
  link_id uuid NOT NULL REFERENCES payment_links (id),
  n integer NOT NULL CHECK (n >= 1),
  -- `<link id>-<n>`: at most 36 + 1 + 10 characters, within Raiffeisen's 40 for any n below 100.
  order_id text NOT NULL UNIQUE,
  livemode boolean NOT NULL,
  provider text NOT NULL,
  method text NOT NULL CHECK (method IN ('sbp', 'crypto')),
  -- The network asked for (crypto), null for SBP.
  network_asked text,
  -- The amounts asked, in kopecks, at the method's rate: what settling this attempt credits and earns.
  fee_bps integer NOT NULL,
  payer_amount bigint NOT NULL CHECK (payer_amount > 0),
  merchant_credit bigint NOT NULL,
  platform_revenue bigint NOT NULL,
  -- creating: committed, provider not yet answered; pending: the provider made the payment; unknown: the call's
  -- outcome is unknown (timeout, 5xx), status sync reads it by order id; refused: the provider refused, nothing made;
  -- superseded: a later attempt replaced it unpaid (canceled at the provider where it can be); paid: it paid the
  -- link; duplicate: paid after another attempt paid the link; late: paid after the link closed; failed, ended_unpaid.
  state text NOT NULL DEFAULT 'creating'
    CHECK (state IN ('creating', 'pending', 'unknown', 'refused', 'superseded', 'paid', 'duplicate', 'late', 'failed', 'ended_unpaid')),
  -- The provider's answer (the link's gateway fields while this is its current attempt).
  gateway_payment_id text,
  to_currency text,
  network text,
  deposit_address text,
  payer_currency text,
  payer_crypto_amount text,
  qr text,
  -- The provider's own last status word, or its refusal's message, for operators.
  provider_status text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (link_id, n)
);

-- A callback names a payment id (the sandbox's is the same for every attempt of a link: the newest answers).
CREATE INDEX payment_attempts_payment_idx ON payment_attempts (provider, gateway_payment_id, n DESC) WHERE gateway_payment_id IS NOT NULL;
-- Status sync reads the unfinished ones.
CREATE INDEX payment_attempts_unfinished_idx ON payment_attempts (updated_at) WHERE state IN ('creating', 'pending', 'unknown');

-- Down Migration
DROP TABLE payment_attempts;
ALTER TABLE payment_links DROP COLUMN attempts_made;
