-- Up Migration
-- When the user was last mailed that a TOTP code of theirs came again (ASVS 2.8.5, docs/adr/0028 "A reused code is
-- mailed"). A reuse mails only when this is empty or an hour old, and sets it in the same transaction that queues
-- the mail: someone replaying codes gets the user one mail an hour, however many they send. It goes with the row:
-- turning TOTP off and on again (a session and a step-up of the user's own) starts it afresh with a new secret.
ALTER TABLE user_totp ADD COLUMN reuse_mailed_at timestamptz;

-- Down Migration
ALTER TABLE user_totp DROP COLUMN reuse_mailed_at;
