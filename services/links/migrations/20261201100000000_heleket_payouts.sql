-- Up Migration
-- Crypto payouts at Heleket (docs/payouts.md, "How a payout is paid"; docs/adr/0044). A live crypto payout is marked
-- `processing` (committed) before Heleket is asked to pay it; what Heleket answers is kept here, and status sync reads
-- every processing Heleket payout from `payout/info` until it is paid or failed, so a lost callback or a create whose
-- answer was lost (a timeout, or links killed mid-call) never loses a payout nor pays it twice.
--
-- `provider_payout_id` is Heleket's payout uuid, null until an answer named it (a create still unanswered);
-- `provider_status` its last word (`process`, `paid`, `system_fail`, ...), for operators. `sync_due_at` is when status
-- sync reads it next (null: `PROVIDER_SYNC_FIRST_DELAY_MS` after `processing_at`), claimed as attempts and refunds are
-- (one statement, FOR UPDATE SKIP LOCKED, moved one interval on); `synced_at` the last read Heleket answered.
ALTER TABLE payouts
  ADD COLUMN provider_payout_id text,
  ADD COLUMN provider_status text,
  ADD COLUMN sync_due_at timestamptz,
  ADD COLUMN synced_at timestamptz;

CREATE INDEX payouts_heleket_sync_due_idx ON payouts ((COALESCE(sync_due_at, processing_at)))
  WHERE rail = 'heleket' AND status = 'processing';

-- Down Migration
DROP INDEX payouts_heleket_sync_due_idx;
ALTER TABLE payouts DROP COLUMN synced_at, DROP COLUMN sync_due_at, DROP COLUMN provider_status, DROP COLUMN provider_payout_id;
