-- Up Migration
-- Who made an audited change: the columns came with users (20261128100000000); every write now fills them
-- (docs/adr/0030). The role is one of the six, and the user agent is the client's own text, kept to 512 characters
-- as the gateway cuts it, so nothing larger ever lands in an append-only table.
ALTER TABLE audit_events
  ADD CONSTRAINT audit_events_role_check CHECK (role IN ('owner', 'admin', 'developer', 'finance', 'support', 'viewer')),
  ADD CONSTRAINT audit_events_user_agent_length CHECK (char_length(user_agent) <= 512);
COMMENT ON COLUMN audit_events.user_id IS 'The user behind the change (a session''s); null for an API key, a cashier key or an operator.';
COMMENT ON COLUMN audit_events.role IS 'The role the user acted in, in this account, when the change was made.';
COMMENT ON COLUMN audit_events.user_agent IS 'The client''s User-Agent, at most 512 characters.';

-- Down Migration
ALTER TABLE audit_events DROP CONSTRAINT audit_events_user_agent_length, DROP CONSTRAINT audit_events_role_check;
