-- Who did it: the actor of a management action (an API key, a member, an OAuth app, the operator's CLI),
-- `{"type": …, "id": …}`, on the event that records it (docs/audit-log.md). Data events have none.
ALTER TABLE events ADD COLUMN actor jsonb;
-- The audit log (`listAuditEvents`: an organization's events with an actor, newest first) reads this
-- index, never the organization's whole stream of data events.
CREATE INDEX events_org_audit ON events (org_id, created_at DESC, seq DESC, id DESC) WHERE actor IS NOT NULL;
