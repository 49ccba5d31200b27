-- Up Migration
-- Automatic payouts (docs/payouts.md, "Automatic payouts"; docs/adr/0046): what the scheduler decided for a shop's
-- schedule of a mode in one period, at most once. `period` is the Moscow date the period starts on at 10:00 (the day,
-- or the Monday of a weekly schedule). The primary key is the exactly-once rule: a scheduled payout's row is written in
-- the payout's own transaction, so of two schedulers at once (two replicas, or one catching up) only one commits a
-- payout for the period, and a period decided without a payout (below the minimum, on hold, ...) is not tried again.
CREATE TABLE payout_schedule_runs (
  shop_id bigint NOT NULL CHECK (shop_id > 0),
  livemode boolean NOT NULL,
  period date NOT NULL,
  interval text NOT NULL CHECK (interval IN ('daily', 'weekly')),
  merchant_id uuid NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('created', 'below_minimum', 'on_hold', 'destination_not_active', 'daily_limit',
                                           'insufficient_available')),
  -- The payout's row is inserted later in the same transaction (payout_create), so the reference is checked at commit.
  payout_id uuid REFERENCES payouts (id) DEFERRABLE INITIALLY DEFERRED,
  -- What the scheduler saw: the shop's available balance and the schedule's minimum (kopecks), for the operator.
  available bigint,
  minimum bigint NOT NULL CHECK (minimum > 0),
  decided_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (shop_id, livemode, period),
  CONSTRAINT payout_schedule_runs_payout_when_created CHECK ((outcome = 'created') = (payout_id IS NOT NULL))
);
-- The operators' list (`payout:schedule-runs`), newest first.
CREATE INDEX payout_schedule_runs_decided_idx ON payout_schedule_runs (decided_at DESC);

-- Down Migration
DROP TABLE payout_schedule_runs;
