-- Up Migration
-- Payout destinations (docs/payouts.md, docs/adr/0036): owned by the account, kept beside accounts and members so the
-- mail to every member with payout rights is queued in the same transaction as the destination (docs/adr/0021).
-- `status` is not stored: a destination is `active` PAYOUT_DESTINATION_COOLDOWN_HOURS after created_at, computed when
-- read, so no job has to move it. A removed destination keeps its row (deleted_at), as payouts name it.
CREATE TABLE payout_destinations (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  livemode boolean NOT NULL,
  type text NOT NULL CHECK (type IN ('bank_account', 'crypto_address')),
  -- The details as given (bank_account: recipient_name, inn, kpp, bik, account; crypto_address: network, address).
  details jsonb NOT NULL,
  masked text NOT NULL,
  created_by uuid REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX payout_destinations_account_idx ON payout_destinations (merchant_id, livemode, created_at DESC) WHERE deleted_at IS NULL;

-- The account's payout settings: an owner may require approval of every payout; an operator may hold its payouts.
ALTER TABLE merchants ADD COLUMN require_payout_approval boolean NOT NULL DEFAULT false,
  ADD COLUMN payouts_on_hold boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE merchants DROP COLUMN payouts_on_hold, DROP COLUMN require_payout_approval;
DROP TABLE payout_destinations;
