-- Organizations, their API keys, and stored idempotent responses.

CREATE TABLE organizations (
  id text PRIMARY KEY,
  name text NOT NULL UNIQUE,
  plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'pro', 'enterprise')),
  invoice_seq bigint NOT NULL DEFAULT 0,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL DEFAULT '',
  kind text NOT NULL CHECK (kind IN ('full_access', 'read_only', 'engine')),
  engines text[] NOT NULL DEFAULT '{}',
  access text CHECK (access IN ('read', 'write')),
  scopes text[] NOT NULL,
  -- SHA-256 of the whole secret; the secret itself is never stored.
  secret_hash text NOT NULL UNIQUE,
  display_prefix text NOT NULL,
  last4 text NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_org_created ON api_keys (org_id, created_at DESC, id DESC);

CREATE TABLE idempotency_keys (
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  key text NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  request_hash text NOT NULL,
  -- NULL while the first request is in flight; a lease frees keys of crashed requests.
  response_status integer,
  response_headers jsonb,
  response_body text,
  locked_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
