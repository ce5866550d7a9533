-- The growth engine's pipeline: deals, and the communications logged with contacts and deals.

CREATE TABLE deals (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  title text NOT NULL,
  -- Composite key: a contact of another organization can never be referenced.
  contact_id text,
  value numeric NOT NULL CHECK (value >= 0),
  currency char(3) NOT NULL,
  stage text NOT NULL CHECK (stage IN ('lead', 'qualified', 'proposal', 'won', 'lost')),
  expected_close_date date,
  -- Set when the deal becomes won or lost (both final).
  closed_at timestamptz,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, contact_id) REFERENCES contacts (org_id, id),
  UNIQUE (org_id, id)
);
CREATE INDEX deals_org_created ON deals (org_id, created_at DESC, id DESC);
CREATE INDEX deals_org_stage_created ON deals (org_id, stage, created_at DESC, id DESC);
-- Also what a contact's delete reads to find the deals that still refer to it.
CREATE INDEX deals_org_contact ON deals (org_id, contact_id) WHERE contact_id IS NOT NULL;

CREATE TABLE communications (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  contact_id text NOT NULL,
  deal_id text,
  channel text NOT NULL CHECK (channel IN ('email', 'call', 'sms', 'meeting')),
  direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
  subject text,
  body text,
  occurred_at timestamptz NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, contact_id) REFERENCES contacts (org_id, id),
  FOREIGN KEY (org_id, deal_id) REFERENCES deals (org_id, id),
  UNIQUE (org_id, id)
);
CREATE INDEX communications_org_created ON communications (org_id, created_at DESC, id DESC);
-- A contact's or a deal's timeline, newest first; also what their deletes read.
CREATE INDEX communications_org_contact_occurred ON communications (org_id, contact_id, occurred_at DESC, id DESC);
CREATE INDEX communications_org_deal_occurred ON communications (org_id, deal_id, occurred_at DESC, id DESC)
  WHERE deal_id IS NOT NULL;
CREATE INDEX communications_org_occurred ON communications (org_id, occurred_at DESC, id DESC);
