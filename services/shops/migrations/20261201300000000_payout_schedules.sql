-- Up Migration
-- A shop's automatic payouts (docs/payouts.md, "Automatic payouts"), one per mode: destinations and balances are of a
-- mode, so a test schedule pays test money to a test destination and never touches the live one. `manual` (the
-- default) is no row. The destination is the gateway's (checked there when set); the minimum's upper bound is
-- PAYOUT_MAX, a setting, so only the lower one is a CHECK here.
CREATE TABLE payout_schedules (
  shop_id bigint NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  livemode boolean NOT NULL,
  interval text NOT NULL CHECK (interval IN ('daily', 'weekly')),
  destination_id uuid NOT NULL,
  minimum_kopecks bigint NOT NULL CHECK (minimum_kopecks >= 10000),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (shop_id, livemode)
);

-- Down Migration
DROP TABLE payout_schedules;
