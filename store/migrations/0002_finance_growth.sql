-- The seed's resources: contacts (growth), products and invoices (finance).

CREATE TABLE contacts (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  email text,
  phone text,
  company text,
  tags text[] NOT NULL DEFAULT '{}',
  lifecycle_stage text NOT NULL DEFAULT 'lead',
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, id)
);
CREATE INDEX contacts_org_created ON contacts (org_id, created_at DESC, id DESC);
CREATE INDEX contacts_org_email ON contacts (org_id, lower(email));

CREATE TABLE products (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  sku text,
  description text,
  price numeric NOT NULL CHECK (price >= 0),
  currency char(3) NOT NULL,
  active boolean NOT NULL DEFAULT true,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, id)
);
CREATE INDEX products_org_created ON products (org_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX products_org_sku ON products (org_id, sku) WHERE sku IS NOT NULL;

CREATE TABLE invoices (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  number text NOT NULL,
  client text NOT NULL,
  -- Composite key: a contact of another organization can never be referenced.
  contact_id text,
  amount numeric NOT NULL CHECK (amount >= 0),
  currency char(3) NOT NULL,
  -- Stored status; 'open' past its due date is reported as 'overdue' (see engines/finance).
  status text NOT NULL CHECK (status IN ('draft', 'open', 'overdue', 'paid', 'void')),
  due_date date NOT NULL,
  description text,
  line_items jsonb NOT NULL DEFAULT '[]',
  issued_at timestamptz,
  paid_at timestamptz,
  voided_at timestamptz,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, contact_id) REFERENCES contacts (org_id, id),
  UNIQUE (org_id, number)
);
CREATE INDEX invoices_org_created ON invoices (org_id, created_at DESC, id DESC);
CREATE INDEX invoices_org_status_due ON invoices (org_id, status, due_date);
CREATE INDEX invoices_org_contact ON invoices (org_id, contact_id) WHERE contact_id IS NOT NULL;
