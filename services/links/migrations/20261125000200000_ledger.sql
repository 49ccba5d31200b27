-- Up Migration
-- The double-entry ledger of docs/money.md, "The ledger". Every movement of money is one transaction of two or
-- more entries (signed kopecks) summing to zero, appended in the same database transaction as the state change
-- that causes it, and never changed afterwards. The database itself holds these rules, so no code path (a
-- helper's, an operator's psql) can break them: a deferred constraint trigger refuses an unbalanced
-- transaction at commit, triggers refuse any UPDATE, DELETE or TRUNCATE of entries and transactions, and a
-- shop's balance cannot go below zero. Everything is per mode: live and test money never share an account.

-- A shop's accounts (`available`, `refund_reserve`) keep a running balance, written by ledger_post in the
-- same transaction as their entries under the row's lock; its CHECK is what refuses a refund the shop cannot
-- cover (SQLSTATE 23514). The platform's accounts (`revenue`, one `clearing` per provider) are touched by
-- every payment: a stored balance there would be one hot row serialising all of them, so theirs is the sum
-- of their entries (ledger:verify computes it).
CREATE TABLE ledger_accounts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  livemode boolean NOT NULL,
  kind text NOT NULL CHECK (kind IN ('available', 'refund_reserve', 'revenue', 'clearing')),
  shop_id bigint CHECK (shop_id > 0),
  provider text,
  balance bigint CHECK (balance >= 0),
  -- When the balance last moved (shop accounts).
  updated_at timestamptz,
  CONSTRAINT ledger_accounts_shop_iff_shop_kind CHECK ((shop_id IS NOT NULL) = (kind IN ('available', 'refund_reserve'))),
  CONSTRAINT ledger_accounts_provider_iff_clearing CHECK ((provider IS NOT NULL) = (kind = 'clearing')),
  CONSTRAINT ledger_accounts_balance_iff_shop CHECK ((balance IS NOT NULL) = (shop_id IS NOT NULL)),
  -- The balance read: a shop's two rows of one mode, never its entries.
  CONSTRAINT ledger_accounts_key UNIQUE NULLS NOT DISTINCT (shop_id, livemode, kind, provider)
);

-- Statement types move the shop's `available` and are listed to the merchant; `refund_succeeded` (reserve to
-- clearing) and `late_refund` (clearing to clearing) are the ledger's own.
CREATE TABLE ledger_transactions (
  id uuid PRIMARY KEY,
  type text NOT NULL CHECK (type IN ('payment', 'late_payment', 'refund', 'refund_failed', 'refund_succeeded', 'late_refund')),
  livemode boolean NOT NULL,
  merchant_id uuid NOT NULL,
  shop_id bigint NOT NULL CHECK (shop_id > 0),
  payment_link_id uuid NOT NULL REFERENCES payment_links (id),
  refund_id uuid,
  late_payment_id uuid REFERENCES late_payments (id),
  -- The statement row: amount and net signed, fee never negative (see links.ledger_post).
  amount bigint NOT NULL,
  fee bigint NOT NULL CHECK (fee >= 0),
  net bigint NOT NULL,
  -- The shop's `available` right after this transaction; null for a transaction that does not move it.
  balance_after bigint,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT ledger_transactions_statement_has_balance CHECK (
    (type IN ('payment', 'late_payment', 'refund', 'refund_failed')) <= (balance_after IS NOT NULL))
);

CREATE TABLE ledger_entries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  transaction_id uuid NOT NULL REFERENCES ledger_transactions (id),
  account_id bigint NOT NULL REFERENCES ledger_accounts (id),
  amount bigint NOT NULL CHECK (amount <> 0)
);

-- The statement, newest first with keyset pagination on (created_at, id), by shop or by merchant, per mode;
-- partial, so the ledger's own types never cost a statement page a filtered row.
CREATE INDEX ledger_transactions_shop_statement_idx ON ledger_transactions (shop_id, livemode, created_at DESC, id DESC)
  WHERE type IN ('payment', 'late_payment', 'refund', 'refund_failed');
CREATE INDEX ledger_transactions_merchant_statement_idx ON ledger_transactions (merchant_id, livemode, created_at DESC, id DESC)
  WHERE type IN ('payment', 'late_payment', 'refund', 'refund_failed');
CREATE INDEX ledger_transactions_link_idx ON ledger_transactions (payment_link_id);
CREATE INDEX ledger_transactions_refund_idx ON ledger_transactions (refund_id) WHERE refund_id IS NOT NULL;
-- The balance check of a transaction, and an account's sum (ledger:verify).
CREATE INDEX ledger_entries_transaction_idx ON ledger_entries (transaction_id);
CREATE INDEX ledger_entries_account_idx ON ledger_entries (account_id) INCLUDE (amount);

-- Refuses, at commit, a transaction whose entries do not sum to zero or that has fewer than two. Deferred, so a
-- transaction's row and its entries may be inserted one by one within the database transaction; fired from both
-- tables, so neither a transaction without entries nor an entry added later to a balanced one gets through.
CREATE FUNCTION ledger_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- The column naming the transaction (the trigger's argument): transaction_id on entries, id on transactions.
  tx uuid := (to_jsonb(NEW) ->> TG_ARGV[0])::uuid;
  entries int;
  total numeric;
BEGIN
  SELECT count(*), coalesce(sum(amount), 0) INTO entries, total FROM ledger_entries WHERE transaction_id = tx;
  IF entries < 2 OR total <> 0 THEN
    RAISE EXCEPTION 'ledger transaction % is unbalanced: % entries summing to %', tx, entries, total
      USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_transaction_balanced';
  END IF;
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced('transaction_id');
CREATE CONSTRAINT TRIGGER ledger_transactions_balanced AFTER INSERT ON ledger_transactions
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced('id');

-- Entries and transactions are append-only: a correction is a new transaction, never an edit.
CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_transactions_append_only BEFORE UPDATE OR DELETE ON ledger_transactions
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_transactions_no_truncate BEFORE TRUNCATE ON ledger_transactions
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();

-- THE posting function: every path that moves money (settle, late settle, refunds) calls it in its own
-- transaction or statement, so accounts, entries, running balances and balance_after are written one way.
--
--   links.ledger_post(p_type, p_payment_link_id, p_refund_id, p_late_payment_id, p_amount, p_fee, p_net, p_entries)
--     RETURNS uuid (the new transaction's id)
--
--   p_type            'payment' | 'late_payment' | 'refund' | 'refund_failed' | 'refund_succeeded' | 'late_refund'
--   p_payment_link_id the link the money is about (required): the mode, merchant and shop are the link's, so a
--                     posting can never put money of one mode or shop into another's accounts
--   p_refund_id, p_late_payment_id   null unless the posting is about one
--   p_amount, p_fee, p_net           the statement row (kopecks): payment = payer_amount, platform_revenue,
--                     merchant_credit; refund = −refund, 0, −refund; refund_failed = +refund, 0, +refund
--   p_entries         jsonb array of {"account": "available" | "refund_reserve" | "revenue" | "clearing",
--                     "provider": text (clearing only, else absent/null), "amount": signed kopecks};
--                     shop accounts are the link's shop's. Zero amounts are left out; missing accounts are created.
--
-- A shop's balance that would go below zero fails with SQLSTATE 23514 (ledger_accounts_balance_check); an
-- unbalanced posting fails at commit (ledger_transaction_balanced). Shop accounts are updated in id order, so
-- two postings of one shop never deadlock.
CREATE FUNCTION ledger_post(
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

-- The account of a kind (of the shop for shop kinds, of the provider for clearing), created on first use. The
-- lookup is spelled out per kind so each is an index probe of ledger_accounts_key (IS NOT DISTINCT FROM is not).
CREATE FUNCTION ledger_account_id(p_livemode boolean, p_kind text, p_shop_id bigint, p_provider text)
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
    -- Missing: create it. A concurrent creator makes ON CONFLICT wait for its commit and insert nothing; the
    -- second lookup then finds its row.
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

-- Down Migration
DROP FUNCTION ledger_post(text, uuid, uuid, uuid, bigint, bigint, bigint, jsonb);
DROP FUNCTION ledger_account_id(boolean, text, bigint, text);
DROP TABLE ledger_entries;
DROP TABLE ledger_transactions;
DROP TABLE ledger_accounts;
DROP FUNCTION ledger_refuse_change();
DROP FUNCTION ledger_check_balanced();
