-- Intelligence snapshots: per organization, the engines' key figures at one instant, kept as history.

CREATE TABLE intelligence_snapshots (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- The instant the figures describe ("overdue", "last 30 days" are measured from it).
  computed_at timestamptz NOT NULL,
  -- {finance, growth, talent}, as engines/intelligence/snapshots.ts documents (SnapshotBodySchema).
  snapshot jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  -- Write order, to break ties between snapshots of the same instant.
  seq bigserial NOT NULL,
  UNIQUE (org_id, id)
);
-- The latest snapshot of an organization is the first entry; history pages walk it.
CREATE INDEX intelligence_snapshots_org_computed ON intelligence_snapshots (org_id, computed_at DESC, seq DESC);
-- Retention purges across organizations by age.
CREATE INDEX intelligence_snapshots_computed ON intelligence_snapshots (computed_at);

-- Money received in a window counts invoices marked paid by hand (no payment recorded) at their
-- paid_at, and DSO divides by what was issued in the last 90 days: both read an organization's
-- recent invoices by these instants instead of scanning all of them.
CREATE INDEX invoices_org_paid_at ON invoices (org_id, paid_at) WHERE status = 'paid';
CREATE INDEX invoices_org_issued_at ON invoices (org_id, issued_at) WHERE issued_at IS NOT NULL;
