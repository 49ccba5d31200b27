-- Up Migration
-- Mail waiting to be sent (libs/mail, docs/adr/0021-mail-queue.md). A row is written in the same transaction as the
-- change that causes the mail, so a rolled-back change sends nothing and a committed one is never lost.
-- due_at is both "send not before" (a retry's back-off) and the lease of a worker sending it: a claim moves it
-- a lease ahead, so a mail whose sender died is claimed again once the lease is over.
CREATE TABLE mail_queue (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  recipient text NOT NULL,
  template text NOT NULL,
  language text NOT NULL CHECK (language IN ('ru', 'en')),
  -- The template's params; links hold single-use tokens, so they are cleared once the mail is done with.
  params jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  due_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  sent_at timestamptz,
  -- Given up after the last attempt; stays for the operator to see.
  failed_at timestamptz
);
-- The worker's claim and the depth/age gauges read only the mails still to send.
CREATE INDEX mail_queue_pending ON mail_queue (due_at) WHERE sent_at IS NULL AND failed_at IS NULL;

-- Down Migration
DROP TABLE mail_queue;
