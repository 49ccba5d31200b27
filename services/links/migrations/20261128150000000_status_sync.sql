-- Up Migration
-- Status sync (docs/adr/0025-status-sync.md): every unfinished attempt at a real provider and every refund still
-- pending at one is read from its provider on a schedule, so no payment or refund is lost with its callback.
-- `sync_due_at` is when it is read next (null: its first read, `PROVIDER_SYNC_FIRST_DELAY_MS` after `created_at`;
-- 'infinity': never again). A replica claims a due row by moving `sync_due_at` one interval on in one short statement
-- (FOR UPDATE SKIP LOCKED), so two replicas never read the same row at once and no lock is held over the provider call;
-- a replica that dies mid-read leaves the row due again one interval later. `synced_at` is the last read that answered.
ALTER TABLE payment_attempts
  ADD COLUMN sync_due_at timestamptz,
  ADD COLUMN synced_at timestamptz,
  -- When its provider confirmed the cancel of this unpaid attempt (a replaced one, or its link's after a cancel or expiry).
  ADD COLUMN provider_canceled_at timestamptz;

-- The rows sync may claim: attempts not final on our side (superseded ones may still be paid at their provider).
CREATE INDEX payment_attempts_sync_due_idx ON payment_attempts ((COALESCE(sync_due_at, created_at)))
  WHERE state IN ('creating', 'pending', 'unknown', 'superseded');

ALTER TABLE refunds
  ADD COLUMN sync_due_at timestamptz,
  ADD COLUMN synced_at timestamptz;

CREATE INDEX refunds_sync_due_idx ON refunds ((COALESCE(sync_due_at, created_at))) WHERE status = 'pending';

-- A link that closes (canceled, expired) makes its unfinished attempts due at once: sync reads each and cancels the
-- unpaid one at its provider (Raiffeisen deletes the QR), after the move committed and outside its transaction.
-- A trigger, so every way a link closes (a cancel with or without a key, the sweeper, an expiry on read) does it.
CREATE FUNCTION payment_attempts_due_on_close() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE payment_attempts SET sync_due_at = now()
   WHERE link_id = NEW.id AND state IN ('creating', 'pending', 'unknown', 'superseded') AND provider <> 'sandbox'
     AND COALESCE(sync_due_at, created_at) <> 'infinity';
  RETURN NULL;
END;
$$;

CREATE TRIGGER payment_links_close_syncs_attempts AFTER UPDATE OF status ON payment_links
  FOR EACH ROW WHEN (OLD.status = 'pending' AND NEW.status IN ('canceled', 'expired') AND NEW.attempts_made > 0)
  EXECUTE FUNCTION payment_attempts_due_on_close();

-- An attempt whose provider's payment id is written after sync gave up on it (the select's answer recorded late)
-- goes back on the schedule: a payment id is what a lost callback would have named.
CREATE FUNCTION payment_attempts_sync_on_payment_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.sync_due_at = 'infinity' THEN
    NEW.sync_due_at := NULL;
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER payment_attempts_payment_id_syncs BEFORE UPDATE OF gateway_payment_id ON payment_attempts
  FOR EACH ROW WHEN (OLD.gateway_payment_id IS NULL AND NEW.gateway_payment_id IS NOT NULL)
  EXECUTE FUNCTION payment_attempts_sync_on_payment_id();

-- Down Migration
DROP TRIGGER payment_attempts_payment_id_syncs ON payment_attempts;
DROP FUNCTION payment_attempts_sync_on_payment_id();
DROP TRIGGER payment_links_close_syncs_attempts ON payment_links;
DROP FUNCTION payment_attempts_due_on_close();
DROP INDEX refunds_sync_due_idx;
ALTER TABLE refunds DROP COLUMN synced_at, DROP COLUMN sync_due_at;
DROP INDEX payment_attempts_sync_due_idx;
ALTER TABLE payment_attempts DROP COLUMN provider_canceled_at, DROP COLUMN synced_at, DROP COLUMN sync_due_at;
