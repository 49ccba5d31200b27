-- Up Migration
-- ledger_post keeps every leg it is given as its own entry instead of netting legs of one account together. A late
-- payment refunded to the buyer moves money from the provider's clearing account back to it (the buyer's payment
-- in, the refund out): netted, that is no entry at all and the balance trigger refuses the transaction; kept, it is
-- two entries that sum to zero and the ledger shows both movements. Running balances still add up per leg.
CREATE OR REPLACE FUNCTION ledger_post(
  p_type text,
  p_payment_link_id uuid,
  p_refund_id uuid,
  p_late_payment_id uuid,
  p_amount bigint,
  p_fee bigint,
  p_net bigint,
  p_entries jsonb
) RETURNS uuid LANGUAGE plpgsql AS $$
DECLARE
  v_link record;
  v_tx uuid := gen_random_uuid();
  v_accounts bigint[] := '{}';
  v_kinds text[] := '{}';
  v_amounts bigint[] := '{}';
  v_leg record;
  v_balance bigint;
  v_available bigint;
BEGIN
  SELECT livemode, merchant_id, shop_id INTO v_link FROM payment_links WHERE id = p_payment_link_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'ledger_post: payment link % not found', p_payment_link_id USING ERRCODE = 'foreign_key_violation';
  END IF;

  FOR v_leg IN
    SELECT e.leg ->> 'account' AS account, e.leg ->> 'provider' AS provider, (e.leg ->> 'amount')::bigint AS amount
      FROM jsonb_array_elements(p_entries) WITH ORDINALITY AS e(leg, n)
     ORDER BY e.n
  LOOP
    v_accounts := v_accounts || ledger_account_id(v_link.livemode, v_leg.account, v_link.shop_id, v_leg.provider);
    v_kinds := v_kinds || v_leg.account;
    v_amounts := v_amounts || v_leg.amount;
  END LOOP;

  -- A statement row always reports `available` after it, so its account exists and is locked even if unmoved.
  IF p_type IN ('payment', 'late_payment', 'refund', 'refund_failed') AND NOT ('available' = ANY (v_kinds)) THEN
    v_accounts := v_accounts || ledger_account_id(v_link.livemode, 'available', v_link.shop_id, NULL);
    v_kinds := v_kinds || 'available'::text;
    v_amounts := v_amounts || 0::bigint;
  END IF;

  -- Running balances first, under the row locks, so created_at (clock_timestamp, taken after them) orders a
  -- shop's statement as its balance_after values chain.
  FOR v_leg IN
    SELECT u.account_id, u.kind, u.amount FROM unnest(v_accounts, v_kinds, v_amounts) AS u(account_id, kind, amount)
     WHERE u.kind IN ('available', 'refund_reserve')
     ORDER BY u.account_id
  LOOP
    UPDATE ledger_accounts SET balance = balance + v_leg.amount, updated_at = now()
     WHERE id = v_leg.account_id
     RETURNING balance INTO STRICT v_balance;
    IF v_leg.kind = 'available' THEN v_available := v_balance; END IF;
  END LOOP;

  INSERT INTO ledger_transactions (id, type, livemode, merchant_id, shop_id, payment_link_id, refund_id, late_payment_id,
                                   amount, fee, net, balance_after)
  VALUES (v_tx, p_type, v_link.livemode, v_link.merchant_id, v_link.shop_id, p_payment_link_id, p_refund_id,
          p_late_payment_id, p_amount, p_fee, p_net, v_available);
  INSERT INTO ledger_entries (transaction_id, account_id, amount)
  SELECT v_tx, u.account_id, u.amount FROM unnest(v_accounts, v_amounts) AS u(account_id, amount) WHERE u.amount <> 0;
  RETURN v_tx;
END $$;

-- Down Migration
-- Back to netting legs of one account (20261125000200000_ledger.sql's version).
CREATE OR REPLACE FUNCTION ledger_post(
  p_type text,
  p_payment_link_id uuid,
  p_refund_id uuid,
  p_late_payment_id uuid,
  p_amount bigint,
  p_fee bigint,
  p_net bigint,
  p_entries jsonb
) RETURNS uuid LANGUAGE plpgsql AS $$
DECLARE
  v_link record;
  v_tx uuid := gen_random_uuid();
  v_accounts bigint[] := '{}';
  v_kinds text[] := '{}';
  v_amounts bigint[] := '{}';
  v_leg record;
  v_balance bigint;
  v_available bigint;
BEGIN
  SELECT livemode, merchant_id, shop_id INTO v_link FROM payment_links WHERE id = p_payment_link_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'ledger_post: payment link % not found', p_payment_link_id USING ERRCODE = 'foreign_key_violation';
  END IF;

  FOR v_leg IN
    SELECT e.account, e.provider, sum(e.amount)::bigint AS amount
      FROM jsonb_to_recordset(p_entries) AS e(account text, provider text, amount bigint)
     GROUP BY e.account, e.provider
  LOOP
    v_accounts := v_accounts || ledger_account_id(v_link.livemode, v_leg.account, v_link.shop_id, v_leg.provider);
    v_kinds := v_kinds || v_leg.account;
    v_amounts := v_amounts || v_leg.amount;
  END LOOP;

  -- A statement row always reports `available` after it, so its account exists and is locked even if unmoved.
  IF p_type IN ('payment', 'late_payment', 'refund', 'refund_failed') AND NOT ('available' = ANY (v_kinds)) THEN
    v_accounts := v_accounts || ledger_account_id(v_link.livemode, 'available', v_link.shop_id, NULL);
    v_kinds := v_kinds || 'available'::text;
    v_amounts := v_amounts || 0::bigint;
  END IF;

  -- Running balances first, under the row locks, so created_at (clock_timestamp, taken after them) orders a
  -- shop's statement as its balance_after values chain.
  FOR v_leg IN
    SELECT u.account_id, u.kind, u.amount FROM unnest(v_accounts, v_kinds, v_amounts) AS u(account_id, kind, amount)
     WHERE u.kind IN ('available', 'refund_reserve')
     ORDER BY u.account_id
  LOOP
    UPDATE ledger_accounts SET balance = balance + v_leg.amount, updated_at = now()
     WHERE id = v_leg.account_id
     RETURNING balance INTO STRICT v_balance;
    IF v_leg.kind = 'available' THEN v_available := v_balance; END IF;
  END LOOP;

  INSERT INTO ledger_transactions (id, type, livemode, merchant_id, shop_id, payment_link_id, refund_id, late_payment_id,
                                   amount, fee, net, balance_after)
  VALUES (v_tx, p_type, v_link.livemode, v_link.merchant_id, v_link.shop_id, p_payment_link_id, p_refund_id,
          p_late_payment_id, p_amount, p_fee, p_net, v_available);
  INSERT INTO ledger_entries (transaction_id, account_id, amount)
  SELECT v_tx, u.account_id, u.amount FROM unnest(v_accounts, v_amounts) AS u(account_id, amount) WHERE u.amount <> 0;
  RETURN v_tx;
END $$;
