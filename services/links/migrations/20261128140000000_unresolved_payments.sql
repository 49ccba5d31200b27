-- Up Migration
-- Money that arrived but did not simply pay a pending link is an unresolved payment (docs/money.md, "Unresolved
-- payments"), with a reason: `late` (after the link was canceled or expired: every row of today's late_payments, kept
-- with its id, resolution, refunds and ledger links), `duplicate` (another attempt paid the link first), `underpaid`,
-- `overpaid` (the surplus), `aml_hold`. The table is late_payments renamed, so every foreign key (refunds, ledger)
-- follows it; `status` is what the API shows, derived from the resolution the conditional updates write.
ALTER TABLE late_payments RENAME TO unresolved_payments;
ALTER TABLE unresolved_payments RENAME CONSTRAINT late_payments_resolved_check TO unresolved_payments_resolved_check;
ALTER INDEX late_payments_received_idx RENAME TO unresolved_payments_received_idx;
ALTER INDEX late_payments_link_idx RENAME TO unresolved_payments_link_idx;
ALTER INDEX late_payments_pkey RENAME TO unresolved_payments_pkey;

ALTER TABLE unresolved_payments
  ADD COLUMN reason text NOT NULL DEFAULT 'late' CHECK (reason IN ('late', 'duplicate', 'underpaid', 'overpaid', 'aml_hold')),
  -- The RUB that arrived, in kopecks (the surplus for overpaid): what a settle credits (less the fee) and a refund returns.
  ADD COLUMN amount bigint,
  -- The coin and coin amount that arrived (crypto), null for SBP.
  ADD COLUMN payer_currency text,
  ADD COLUMN payer_crypto_amount text,
  -- The crypto network it came on (a refund goes back on it), null for SBP.
  ADD COLUMN network text,
  -- The refund that resolved it (null unless refunded; a failed refund clears it).
  ADD COLUMN refund_id uuid,
  -- The attempt's provider order id the payment named (a refund names it to the provider), null for the sandbox's.
  ADD COLUMN order_id text,
  ADD COLUMN status text GENERATED ALWAYS AS (COALESCE(resolution, 'unresolved')) STORED;

-- A late payment so far was the whole asked amount; a refunded one names its (last not failed) refund.
UPDATE unresolved_payments p SET amount = p.payer_amount, network = l.network, payer_currency = l.payer_currency,
    payer_crypto_amount = l.payer_crypto_amount
  FROM payment_links l WHERE l.id = p.link_id;
UPDATE unresolved_payments p SET refund_id = r.id
  FROM refunds r WHERE r.late_payment_id = p.id AND p.resolution = 'refunded' AND r.status <> 'failed';
ALTER TABLE unresolved_payments ALTER COLUMN amount SET NOT NULL, ADD CONSTRAINT unresolved_payments_amount_check CHECK (amount > 0);
ALTER TABLE unresolved_payments ALTER COLUMN reason DROP DEFAULT;
-- The link's state once the payment arrived: an overpayment pays it and an underpayment or an AML hold of its current
-- attempt fails it, in the same transaction as the record; one of an attempt the buyer has left behind leaves it pending.
ALTER TABLE unresolved_payments DROP CONSTRAINT late_payments_link_status_check,
  ADD CONSTRAINT unresolved_payments_link_status_check CHECK (link_status IN ('pending', 'paid', 'expired', 'canceled', 'failed'));

-- One record per provider payment and reason: a repeated callback records nothing twice.
ALTER TABLE unresolved_payments DROP CONSTRAINT late_payments_payment_key,
  ADD CONSTRAINT unresolved_payments_payment_key UNIQUE (provider, gateway_payment_id, reason);

-- The merchants' list: by merchant and mode, newest first (keyset on created_at = received_at, id).
CREATE INDEX unresolved_payments_list_idx ON unresolved_payments (received_at DESC, id DESC);
-- The outages' gauge and alert read the unresolved ones by reason and age.
CREATE INDEX unresolved_payments_open_idx ON unresolved_payments (reason, received_at) WHERE resolution IS NULL;

-- Settling an unresolved payment other than a late one posts type `unresolved_payment`: a statement type (it credits
-- the shop's available), listed to the merchant like `late_payment`.
ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_type_check,
  ADD CONSTRAINT ledger_transactions_type_check
    CHECK (type IN ('payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed', 'refund_succeeded', 'late_refund',
                    'late_refund_failed'));
ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_statement_has_balance,
  ADD CONSTRAINT ledger_transactions_statement_has_balance CHECK (
    (type IN ('payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed')) <= (balance_after IS NOT NULL));
DROP INDEX ledger_transactions_shop_statement_idx;
DROP INDEX ledger_transactions_merchant_statement_idx;
CREATE INDEX ledger_transactions_shop_statement_idx ON ledger_transactions (shop_id, livemode, created_at DESC, id DESC)
  WHERE type IN ('payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed');
CREATE INDEX ledger_transactions_merchant_statement_idx ON ledger_transactions (merchant_id, livemode, created_at DESC, id DESC)
  WHERE type IN ('payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed');

-- Down Migration
-- Refused once a record other than a late one exists, or an unresolved_payment posting: there is no going back past them.
DROP INDEX ledger_transactions_shop_statement_idx;
DROP INDEX ledger_transactions_merchant_statement_idx;
CREATE INDEX ledger_transactions_shop_statement_idx ON ledger_transactions (shop_id, livemode, created_at DESC, id DESC)
  WHERE type IN ('payment', 'late_payment', 'refund', 'refund_failed');
CREATE INDEX ledger_transactions_merchant_statement_idx ON ledger_transactions (merchant_id, livemode, created_at DESC, id DESC)
  WHERE type IN ('payment', 'late_payment', 'refund', 'refund_failed');
ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_statement_has_balance,
  ADD CONSTRAINT ledger_transactions_statement_has_balance CHECK (
    (type IN ('payment', 'late_payment', 'refund', 'refund_failed')) <= (balance_after IS NOT NULL));
ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_type_check,
  ADD CONSTRAINT ledger_transactions_type_check
    CHECK (type IN ('payment', 'late_payment', 'refund', 'refund_failed', 'refund_succeeded', 'late_refund', 'late_refund_failed'));
DELETE FROM unresolved_payments WHERE reason <> 'late';
DROP INDEX unresolved_payments_open_idx;
DROP INDEX unresolved_payments_list_idx;
ALTER TABLE unresolved_payments DROP CONSTRAINT unresolved_payments_payment_key,
  ADD CONSTRAINT late_payments_payment_key UNIQUE (provider, gateway_payment_id);
ALTER TABLE unresolved_payments DROP CONSTRAINT unresolved_payments_link_status_check,
  ADD CONSTRAINT late_payments_link_status_check CHECK (link_status IN ('paid', 'expired', 'canceled', 'failed'));
ALTER TABLE unresolved_payments DROP COLUMN status, DROP COLUMN order_id, DROP COLUMN refund_id, DROP COLUMN network, DROP COLUMN payer_crypto_amount,
  DROP COLUMN payer_currency, DROP COLUMN amount, DROP COLUMN reason;
ALTER INDEX unresolved_payments_pkey RENAME TO late_payments_pkey;
ALTER INDEX unresolved_payments_link_idx RENAME TO late_payments_link_idx;
ALTER INDEX unresolved_payments_received_idx RENAME TO late_payments_received_idx;
ALTER TABLE unresolved_payments RENAME CONSTRAINT unresolved_payments_resolved_check TO late_payments_resolved_check;
ALTER TABLE unresolved_payments RENAME TO late_payments;
