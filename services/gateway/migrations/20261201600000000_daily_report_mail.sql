-- Up Migration
-- The daily report mail (docs/payouts.md "Reports", docs/adr/0049): a member opts in per account, and the morning job
-- mails yesterday's figures of the account's shops. The flag sits on the membership, so it is the member's own, per
-- account, and goes with the membership; the job reads only members whose role reads money (roles.ts read_money).
ALTER TABLE memberships ADD COLUMN daily_report_mail boolean NOT NULL DEFAULT false;
-- The job's first read: the opted-in members, few among all.
CREATE INDEX memberships_daily_report_mail_idx ON memberships (merchant_id) WHERE daily_report_mail;

-- One row per member, account and Moscow day mailed: inserted in the transaction that queues the mail, so two
-- replicas (or a run caught up after one was down) queue it once. Kept as the record of what was mailed.
CREATE TABLE daily_report_mails (
  user_id uuid NOT NULL REFERENCES users (id),
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  day date NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, merchant_id, day)
);

-- Down Migration
DROP TABLE daily_report_mails;
DROP INDEX memberships_daily_report_mail_idx;
ALTER TABLE memberships DROP COLUMN daily_report_mail;
