-- The transactional outbox: one row per event, written in the changing transaction.

CREATE TABLE events (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  type text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  -- Write order, to break ties between events of the same instant.
  seq bigserial NOT NULL
);
CREATE INDEX events_org_created ON events (org_id, created_at DESC, seq DESC, id DESC);
CREATE INDEX events_org_type_created ON events (org_id, type, created_at DESC);
CREATE INDEX events_created ON events (created_at);
