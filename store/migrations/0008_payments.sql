-- Payments (finance): money received against an invoice. The invoice keeps the running
-- total so its balance is read without summing payments, and a payment that covers it
-- marks it paid in the same transaction.

-- Lets payments reference (org_id, id), so an invoice of another organization never can be.
ALTER TABLE invoices ADD CONSTRAINT invoices_org_id_key UNIQUE (org_id, id);
ALTER TABLE invoices ADD COLUMN amount_paid numeric NOT NULL DEFAULT 0 CHECK (amount_paid >= 0);

CREATE TABLE payments (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- Composite key: an invoice of another organization can never be referenced.
  invoice_id text NOT NULL,
  amount numeric NOT NULL CHECK (amount > 0),
  currency char(3) NOT NULL,
  method text NOT NULL,
  reference text,
  received_at timestamptz NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, invoice_id) REFERENCES invoices (org_id, id),
  UNIQUE (org_id, id)
);
CREATE INDEX payments_org_created ON payments (org_id, created_at DESC, id DESC);
CREATE INDEX payments_org_invoice ON payments (org_id, invoice_id);
CREATE INDEX payments_org_received ON payments (org_id, received_at DESC, id DESC);
