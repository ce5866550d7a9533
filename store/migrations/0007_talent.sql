-- The talent engine: candidates in a hiring pipeline, and the skills they claim (some verified).

CREATE TABLE candidates (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  email text NOT NULL,
  phone text,
  position text NOT NULL,
  source text,
  -- applied → screening → interview → offer → hired, or rejected from any open status (engines/talent).
  status text NOT NULL DEFAULT 'applied'
    CHECK (status IN ('applied', 'screening', 'interview', 'offer', 'hired', 'rejected')),
  hired_at timestamptz,
  rejected_at timestamptz,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, id)
);
CREATE INDEX candidates_org_created ON candidates (org_id, created_at DESC, id DESC);
CREATE INDEX candidates_org_status_created ON candidates (org_id, status, created_at DESC, id DESC);
-- One candidate per address in an organization, whatever its case: a duplicate is a 409, even in a race.
CREATE UNIQUE INDEX candidates_org_email ON candidates (org_id, lower(email));

CREATE TABLE skills (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- Composite key: a candidate of another organization can never be referenced.
  candidate_id text NOT NULL,
  name text NOT NULL,
  level text NOT NULL DEFAULT 'intermediate'
    CHECK (level IN ('beginner', 'intermediate', 'advanced', 'expert')),
  status text NOT NULL DEFAULT 'claimed' CHECK (status IN ('claimed', 'verified')),
  verified_at timestamptz,
  verified_by text,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, candidate_id) REFERENCES candidates (org_id, id),
  UNIQUE (org_id, id)
);
CREATE INDEX skills_org_created ON skills (org_id, created_at DESC, id DESC);
-- A candidate names each skill once, whatever its case; also serves `?candidate_id=` and the
-- check before a candidate is deleted.
CREATE UNIQUE INDEX skills_org_candidate_name ON skills (org_id, candidate_id, lower(name));
CREATE INDEX skills_org_verified ON skills (org_id, verified_at) WHERE verified_at IS NOT NULL;
