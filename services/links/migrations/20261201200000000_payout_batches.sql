-- Up Migration
-- Bank payouts (docs/payouts.md, "How a payout is paid"; docs/adr/0045-payout-batches-and-statement-import.md): approved
-- live payouts of the `bank` rail are gathered into batches, each exported as one 1C payment file that an operator
-- uploads to the platform's bank; the bank's statement is imported back, line by line, to mark them paid or failed.

-- A batch: what `payout:batch:create` gathered, when it was first exported (its orders are dated that Moscow day on
-- every export, so a file exported again is the same file, which a bank client takes for a repeated upload and
-- refuses or flags) and when the operator said it was uploaded.
CREATE TABLE payout_batches (
  id uuid PRIMARY KEY,
  payout_count integer NOT NULL CHECK (payout_count > 0),
  -- The orders' sum in kopecks: the payouts' amounts (their fees stay with the platform).
  total bigint NOT NULL CHECK (total > 0),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  exported_at timestamptz,
  last_exported_at timestamptz,
  export_count integer NOT NULL DEFAULT 0 CHECK (export_count >= 0),
  sent_at timestamptz,
  CONSTRAINT payout_batches_sent_after_export CHECK (sent_at IS NULL OR exported_at IS NOT NULL)
);
CREATE INDEX payout_batches_list_idx ON payout_batches (created_at DESC, id DESC);

-- A payment order's number: at most six digits, and unique among the orders of a day (a bank client takes a repeated
-- number and date for a repeated upload). A million orders go by before a number comes back.
CREATE SEQUENCE payout_order_number AS integer MINVALUE 1 MAXVALUE 999999 CYCLE;

-- A payout's place in its batch. The primary key is the rule "a payout in at most one batch", held by the database
-- whatever two operators run at once.
CREATE TABLE payout_batch_items (
  payout_id uuid PRIMARY KEY REFERENCES payouts (id),
  batch_id uuid NOT NULL REFERENCES payout_batches (id),
  order_number integer NOT NULL CHECK (order_number BETWEEN 1 AND 999999),
  -- The order's amount in kopecks, as written to the file.
  amount bigint NOT NULL CHECK (amount > 0),
  CONSTRAINT payout_batch_items_order_number_key UNIQUE (batch_id, order_number)
);
CREATE INDEX payout_batch_items_batch_idx ON payout_batch_items (batch_id, order_number);

-- A statement line that moved a payout (an executed order: paid; a return: failed). `line_key` is the line's identity
-- (a SHA-256 of its direction, date, document number, amount, counterparty and purpose), so the same line met again
-- (the statement imported twice, or in a later statement covering the same days) is known and skipped. One debit and
-- one return at most per payout: a second one naming the same payout is left for an operator, never applied.
CREATE TABLE payout_statement_lines (
  line_key text PRIMARY KEY CHECK (line_key ~ '^[0-9a-f]{64}$'),
  payout_id uuid NOT NULL REFERENCES payouts (id),
  direction text NOT NULL CHECK (direction IN ('debit', 'credit')),
  document_number text NOT NULL,
  document_date date NOT NULL,
  amount bigint NOT NULL CHECK (amount > 0),
  purpose text NOT NULL,
  counterparty_account text NOT NULL,
  -- The statement file it came from (SHA-256 of its bytes), for the audit trail.
  file_sha256 text NOT NULL CHECK (file_sha256 ~ '^[0-9a-f]{64}$'),
  imported_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT payout_statement_lines_one_per_direction UNIQUE (payout_id, direction)
);

-- Down Migration
DROP TABLE payout_statement_lines;
DROP TABLE payout_batch_items;
DROP SEQUENCE payout_order_number;
DROP TABLE payout_batches;
