-- Up Migration
-- A late payment's refund that fails returns the payment to unresolved (docs/product-decisions.md, "Unresolved
-- payments"): its `late_refund` posting (clearing to clearing) is reversed in the failure's transaction by a
-- `late_refund_failed` posting of the opposite legs, a ledger type of its own that no statement lists.
ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_type_check,
  ADD CONSTRAINT ledger_transactions_type_check
    CHECK (type IN ('payment', 'late_payment', 'refund', 'refund_failed', 'refund_succeeded', 'late_refund', 'late_refund_failed'));

-- Down Migration
-- Refused while a late_refund_failed posting exists: the ledger is append-only, so there is no going back past one.
ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_type_check,
  ADD CONSTRAINT ledger_transactions_type_check
    CHECK (type IN ('payment', 'late_payment', 'refund', 'refund_failed', 'refund_succeeded', 'late_refund'));
