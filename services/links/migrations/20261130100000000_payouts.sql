-- Up Migration
-- Payouts (docs/payouts.md): a merchant takes money out of a shop's balance to a destination of its account. The
-- links service owns them because it owns the ledger: a payout's state and its money move in one transaction.
--
-- The destination is the gateway's (it lives beside accounts, docs/adr/0036); the payout keeps a snapshot of it as
-- resolved when it was made (type, masked form, details), so the rails pay where the merchant asked even if the
-- destination is removed later. `rail` is where it will be paid: the sandbox (test mode), Heleket (crypto) or the
-- platform's bank (bank account, by the 1C exchange file).
CREATE TABLE payouts (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL,
  shop_id bigint NOT NULL CHECK (shop_id > 0),
  livemode boolean NOT NULL,
  amount bigint NOT NULL CHECK (amount > 0),
  fee bigint NOT NULL CHECK (fee >= 0),
  status text NOT NULL CHECK (status IN ('pending_approval', 'approved', 'processing', 'paid', 'failed', 'canceled', 'rejected')),
  description text,
  destination_id uuid NOT NULL,
  destination_type text NOT NULL CHECK (destination_type IN ('bank_account', 'crypto_address')),
  destination_masked text NOT NULL,
  destination_details jsonb NOT NULL,
  rail text NOT NULL CHECK (rail IN ('sandbox', 'heleket', 'bank')),
  failure_reason text,
  created_by uuid,
  approved_by uuid,
  -- Who canceled or rejected it (a member), null when a rail failed it or nobody did.
  canceled_by uuid,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  approved_at timestamptz,
  processing_at timestamptz,
  paid_at timestamptz,
  failed_at timestamptz,
  canceled_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- The four-eyes rule held by the database too: nobody approves their own payout.
  CONSTRAINT payouts_approved_by_another CHECK (approved_by IS NULL OR created_by IS NULL OR approved_by <> created_by),
  CONSTRAINT payouts_test_in_sandbox CHECK (livemode OR rail = 'sandbox')
);
-- The merchants' list, newest first (keyset on created_at, id), per mode.
CREATE INDEX payouts_list_idx ON payouts (merchant_id, livemode, created_at DESC, id DESC);
-- The daily limit: an account's payouts of the last 24 hours that still count.
CREATE INDEX payouts_daily_idx ON payouts (merchant_id, livemode, created_at) WHERE status NOT IN ('canceled', 'rejected', 'failed');
-- What the rails pick up: approved or processing payouts of a rail.
CREATE INDEX payouts_rail_queue_idx ON payouts (rail, status, created_at) WHERE status IN ('approved', 'processing');

-- A shop's third account: money on its way out (created, not yet paid or returned). It has a running balance like
-- the shop's other two, never below zero.
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check,
  ADD CONSTRAINT ledger_accounts_kind_check CHECK (kind IN ('available', 'refund_reserve', 'payouts_in_transit', 'revenue', 'clearing'));
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_shop_iff_shop_kind,
  ADD CONSTRAINT ledger_accounts_shop_iff_shop_kind CHECK ((shop_id IS NOT NULL) = (kind IN ('available', 'refund_reserve', 'payouts_in_transit')));

-- A transaction is about a link (and maybe a refund or an unresolved payment of it) or about a payout.
ALTER TABLE ledger_transactions ALTER COLUMN payment_link_id DROP NOT NULL,
  ADD COLUMN payout_id uuid REFERENCES payouts (id),
  ADD CONSTRAINT ledger_transactions_link_or_payout CHECK ((payment_link_id IS NULL) <> (payout_id IS NULL));
-- `payout` (available to in transit) and `payout_returned` (back: failed, canceled, rejected) are statement rows;
-- `payout_paid` (in transit to the rail's clearing, the fee to revenue) is the ledger's own.
ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_type_check,
  ADD CONSTRAINT ledger_transactions_type_check
    CHECK (type IN ('payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed', 'refund_succeeded', 'late_refund',
                    'late_refund_failed', 'payout', 'payout_returned', 'payout_paid'));
ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_statement_has_balance,
  ADD CONSTRAINT ledger_transactions_statement_has_balance CHECK (
    (type IN ('payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed', 'payout', 'payout_returned')) <= (balance_after IS NOT NULL));
DROP INDEX ledger_transactions_shop_statement_idx;
DROP INDEX ledger_transactions_merchant_statement_idx;
CREATE INDEX ledger_transactions_shop_statement_idx ON ledger_transactions (shop_id, livemode, created_at DESC, id DESC)
  WHERE type IN ('payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed', 'payout', 'payout_returned');
CREATE INDEX ledger_transactions_merchant_statement_idx ON ledger_transactions (merchant_id, livemode, created_at DESC, id DESC)
  WHERE type IN ('payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed', 'payout', 'payout_returned');
-- The hold: a shop's credits of the last PAYOUT_HOLD_HOURS, read under the balance's lock on every payout.
CREATE INDEX ledger_transactions_shop_credits_idx ON ledger_transactions (shop_id, livemode, created_at)
  INCLUDE (net) WHERE type IN ('payment', 'late_payment', 'unresolved_payment');
CREATE INDEX ledger_transactions_payout_idx ON ledger_transactions (payout_id) WHERE payout_id IS NOT NULL;

-- A request with an Idempotency-Key may make a payout: its record names no link.
ALTER TABLE idempotency_keys ALTER COLUMN link_id DROP NOT NULL;

-- The account of a kind, as before, with the shop's payouts_in_transit among the shop's kinds.
CREATE OR REPLACE FUNCTION ledger_account_id(p_livemode boolean, p_kind text, p_shop_id bigint, p_provider text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_shop bigint := CASE WHEN p_kind IN ('available', 'refund_reserve', 'payouts_in_transit') THEN p_shop_id END;
  v_provider text := CASE WHEN p_kind = 'clearing' THEN p_provider END;
  v_id bigint;
BEGIN
  FOR attempt IN 1..2 LOOP
    IF v_shop IS NOT NULL THEN
      SELECT id INTO v_id FROM ledger_accounts WHERE shop_id = v_shop AND livemode = p_livemode AND kind = p_kind AND provider IS NULL;
    ELSIF v_provider IS NOT NULL THEN
      SELECT id INTO v_id FROM ledger_accounts WHERE shop_id IS NULL AND livemode = p_livemode AND kind = p_kind AND provider = v_provider;
    ELSE
      SELECT id INTO v_id FROM ledger_accounts WHERE shop_id IS NULL AND livemode = p_livemode AND kind = p_kind AND provider IS NULL;
    END IF;
    IF v_id IS NOT NULL OR attempt = 2 THEN EXIT; END IF;
    INSERT INTO ledger_accounts (livemode, kind, shop_id, provider, balance)
    VALUES (p_livemode, p_kind, v_shop, v_provider, CASE WHEN v_shop IS NOT NULL THEN 0 END)
    ON CONFLICT ON CONSTRAINT ledger_accounts_key DO NOTHING
    RETURNING id INTO v_id;
    IF v_id IS NOT NULL THEN EXIT; END IF;
  END LOOP;
  IF v_id IS NULL THEN
    RAISE EXCEPTION 'ledger account % (shop %, provider %) could not be created', p_kind, v_shop, v_provider;
  END IF;
  RETURN v_id;
END $$;

-- THE posting function of payouts, ledger_post's twin: the mode, merchant and shop are the payout's, so no caller
-- can move one shop's or mode's money into another's accounts. Same entries, running balances (the shop's three
-- accounts, in id order) and balance_after as ledger_post.
--
--   links.ledger_post_payout(p_type, p_payout_id, p_amount, p_fee, p_net, p_entries) RETURNS uuid
--   p_type   'payout' | 'payout_returned' | 'payout_paid'
--   p_entries jsonb array of {"account": "available" | "payouts_in_transit" | "revenue" | "clearing", "provider", "amount"}
CREATE FUNCTION ledger_post_payout(
  p_type text,
  p_payout_id uuid,
  p_amount bigint,
  p_fee bigint,
  p_net bigint,
  p_entries jsonb
) RETURNS uuid LANGUAGE plpgsql AS $$
DECLARE
  v_payout record;
  v_tx uuid := gen_random_uuid();
  v_accounts bigint[] := '{}';
  v_kinds text[] := '{}';
  v_amounts bigint[] := '{}';
  v_leg record;
  v_balance bigint;
  v_available bigint;
BEGIN
  SELECT livemode, merchant_id, shop_id INTO v_payout FROM payouts WHERE id = p_payout_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'ledger_post_payout: payout % not found', p_payout_id USING ERRCODE = 'foreign_key_violation';
  END IF;

  FOR v_leg IN
    SELECT e.leg ->> 'account' AS account, e.leg ->> 'provider' AS provider, (e.leg ->> 'amount')::bigint AS amount
      FROM jsonb_array_elements(p_entries) WITH ORDINALITY AS e(leg, n)
     ORDER BY e.n
  LOOP
    v_accounts := v_accounts || ledger_account_id(v_payout.livemode, v_leg.account, v_payout.shop_id, v_leg.provider);
    v_kinds := v_kinds || v_leg.account;
    v_amounts := v_amounts || v_leg.amount;
  END LOOP;

  IF p_type IN ('payout', 'payout_returned') AND NOT ('available' = ANY (v_kinds)) THEN
    v_accounts := v_accounts || ledger_account_id(v_payout.livemode, 'available', v_payout.shop_id, NULL);
    v_kinds := v_kinds || 'available'::text;
    v_amounts := v_amounts || 0::bigint;
  END IF;

  FOR v_leg IN
    SELECT u.account_id, u.kind, u.amount FROM unnest(v_accounts, v_kinds, v_amounts) AS u(account_id, kind, amount)
     WHERE u.kind IN ('available', 'refund_reserve', 'payouts_in_transit')
     ORDER BY u.account_id
  LOOP
    UPDATE ledger_accounts SET balance = balance + v_leg.amount, updated_at = now()
     WHERE id = v_leg.account_id
     RETURNING balance INTO STRICT v_balance;
    IF v_leg.kind = 'available' THEN v_available := v_balance; END IF;
  END LOOP;

  INSERT INTO ledger_transactions (id, type, livemode, merchant_id, shop_id, payment_link_id, payout_id, amount, fee, net, balance_after)
  VALUES (v_tx, p_type, v_payout.livemode, v_payout.merchant_id, v_payout.shop_id, NULL, p_payout_id, p_amount, p_fee, p_net,
          CASE WHEN p_type IN ('payout', 'payout_returned') THEN v_available END);
  INSERT INTO ledger_entries (transaction_id, account_id, amount)
  SELECT v_tx, u.account_id, u.amount FROM unnest(v_accounts, v_amounts) AS u(account_id, amount) WHERE u.amount <> 0;
  RETURN v_tx;
END $$;

-- A payout made in one statement, so the account's payout lock is held for one round trip and the commit: under the
-- account's advisory lock (its 24 hours judged with no other payout of it in between) and the shop balance's row lock
-- (its available judged and posted against with no other posting of the shop in between), the checks, the row and its
-- posting (available → payouts_in_transit). A refusal raises SQLSTATE PL422 with the refusal's name as its message
-- (`insufficient_available`, `daily_limit`), which rolls the caller's transaction back.
CREATE FUNCTION payout_create(
  p_id uuid, p_merchant_id uuid, p_shop_id bigint, p_livemode boolean, p_amount bigint, p_fee bigint, p_status text,
  p_description text, p_destination_id uuid, p_destination_type text, p_destination_masked text, p_destination_details jsonb,
  p_rail text, p_created_by uuid, p_created_at timestamptz, p_hold_seconds float8, p_daily_max bigint
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_account bigint;
  v_balance bigint;
  v_held bigint;
  v_spent bigint;
  v_total bigint := p_amount + p_fee;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('payouts:' || p_merchant_id || ':' || p_livemode, 0));
  v_account := ledger_account_id(p_livemode, 'available', p_shop_id, NULL);
  SELECT balance INTO v_balance FROM ledger_accounts WHERE id = v_account FOR UPDATE;
  SELECT coalesce(sum(net), 0) INTO v_held FROM ledger_transactions
   WHERE shop_id = p_shop_id AND livemode = p_livemode AND type IN ('payment', 'late_payment', 'unresolved_payment')
     AND created_at > now() - make_interval(secs => p_hold_seconds);
  IF v_total > least(v_balance, greatest(0, v_balance - v_held)) THEN
    RAISE EXCEPTION 'insufficient_available' USING ERRCODE = 'PL422';
  END IF;
  SELECT coalesce(sum(amount), 0) INTO v_spent FROM payouts
   WHERE merchant_id = p_merchant_id AND livemode = p_livemode AND created_at > now() - interval '24 hours'
     AND status NOT IN ('canceled', 'rejected', 'failed');
  IF v_spent + p_amount > p_daily_max THEN
    RAISE EXCEPTION 'daily_limit' USING ERRCODE = 'PL422';
  END IF;
  INSERT INTO payouts (id, merchant_id, shop_id, livemode, amount, fee, status, description, destination_id, destination_type,
                       destination_masked, destination_details, rail, created_by, created_at, approved_at, updated_at)
  VALUES (p_id, p_merchant_id, p_shop_id, p_livemode, p_amount, p_fee, p_status, p_description, p_destination_id,
          p_destination_type, p_destination_masked, p_destination_details, p_rail, p_created_by, p_created_at,
          CASE WHEN p_status = 'approved' THEN p_created_at END, p_created_at);
  PERFORM ledger_post_payout('payout', p_id, -p_amount, p_fee, -v_total,
    jsonb_build_array(jsonb_build_object('account', 'available', 'amount', -v_total),
                      jsonb_build_object('account', 'payouts_in_transit', 'amount', v_total)));
END $$;

-- Down Migration
-- Refused once a payout has been posted: there is no going back past money that moved.
DROP FUNCTION payout_create(uuid, uuid, bigint, boolean, bigint, bigint, text, text, uuid, text, text, jsonb, text, uuid, timestamptz, float8, bigint);
DROP FUNCTION ledger_post_payout(text, uuid, bigint, bigint, bigint, jsonb);
CREATE OR REPLACE FUNCTION ledger_account_id(p_livemode boolean, p_kind text, p_shop_id bigint, p_provider text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_shop bigint := CASE WHEN p_kind IN ('available', 'refund_reserve') THEN p_shop_id END;
  v_provider text := CASE WHEN p_kind = 'clearing' THEN p_provider END;
  v_id bigint;
BEGIN
  FOR attempt IN 1..2 LOOP
    IF v_shop IS NOT NULL THEN
      SELECT id INTO v_id FROM ledger_accounts WHERE shop_id = v_shop AND livemode = p_livemode AND kind = p_kind AND provider IS NULL;
    ELSIF v_provider IS NOT NULL THEN
      SELECT id INTO v_id FROM ledger_accounts WHERE shop_id IS NULL AND livemode = p_livemode AND kind = p_kind AND provider = v_provider;
    ELSE
      SELECT id INTO v_id FROM ledger_accounts WHERE shop_id IS NULL AND livemode = p_livemode AND kind = p_kind AND provider IS NULL;
    END IF;
    IF v_id IS NOT NULL OR attempt = 2 THEN EXIT; END IF;
    INSERT INTO ledger_accounts (livemode, kind, shop_id, provider, balance)
    VALUES (p_livemode, p_kind, v_shop, v_provider, CASE WHEN v_shop IS NOT NULL THEN 0 END)
    ON CONFLICT ON CONSTRAINT ledger_accounts_key DO NOTHING
    RETURNING id INTO v_id;
    IF v_id IS NOT NULL THEN EXIT; END IF;
  END LOOP;
  IF v_id IS NULL THEN
    RAISE EXCEPTION 'ledger account % (shop %, provider %) could not be created', p_kind, v_shop, v_provider;
  END IF;
  RETURN v_id;
END $$;
ALTER TABLE idempotency_keys ALTER COLUMN link_id SET NOT NULL;
DROP INDEX ledger_transactions_payout_idx;
DROP INDEX ledger_transactions_shop_credits_idx;
DROP INDEX ledger_transactions_shop_statement_idx;
DROP INDEX ledger_transactions_merchant_statement_idx;
CREATE INDEX ledger_transactions_shop_statement_idx ON ledger_transactions (shop_id, livemode, created_at DESC, id DESC)
  WHERE type IN ('payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed');
CREATE INDEX ledger_transactions_merchant_statement_idx ON ledger_transactions (merchant_id, livemode, created_at DESC, id DESC)
  WHERE type IN ('payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed');
ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_statement_has_balance,
  ADD CONSTRAINT ledger_transactions_statement_has_balance CHECK (
    (type IN ('payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed')) <= (balance_after IS NOT NULL));
ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_type_check,
  ADD CONSTRAINT ledger_transactions_type_check
    CHECK (type IN ('payment', 'late_payment', 'unresolved_payment', 'refund', 'refund_failed', 'refund_succeeded', 'late_refund',
                    'late_refund_failed'));
ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_link_or_payout, DROP COLUMN payout_id,
  ALTER COLUMN payment_link_id SET NOT NULL;
DELETE FROM ledger_accounts WHERE kind = 'payouts_in_transit';
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_shop_iff_shop_kind,
  ADD CONSTRAINT ledger_accounts_shop_iff_shop_kind CHECK ((shop_id IS NOT NULL) = (kind IN ('available', 'refund_reserve')));
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check,
  ADD CONSTRAINT ledger_accounts_kind_check CHECK (kind IN ('available', 'refund_reserve', 'revenue', 'clearing'));
DROP TABLE payouts;
