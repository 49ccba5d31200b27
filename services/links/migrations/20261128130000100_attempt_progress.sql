-- Up Migration
-- What the provider last said of an attempt that is not final yet (docs/providers.md, "The checkout"): `confirming`
-- (Heleket `process`, `confirm_check`: seen, waiting for confirmations) or `partially_paid` (`wrong_amount_waiting`:
-- part arrived, the invoice waits for the rest), with the coin amount still to send. The checkout shows them; a final
-- status moves the attempt's state as before.
ALTER TABLE payment_attempts
  ADD COLUMN payment_status text CHECK (payment_status IN ('unpaid', 'confirming', 'partially_paid')),
  ADD COLUMN remaining_crypto_amount text;

-- Down Migration
ALTER TABLE payment_attempts DROP COLUMN remaining_crypto_amount, DROP COLUMN payment_status;
