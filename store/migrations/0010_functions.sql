-- Edge functions: a function per (organization, name), its immutable deployments
-- (one per deploy; rollback points the function at an older one), its secrets
-- (sealed with TESSERA_SECRET) and the console lines of its invocations.

CREATE TABLE functions (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  -- The deployment that serves requests, and the newest one.
  active_version integer NOT NULL,
  latest_version integer NOT NULL,
  -- Bumped by every secrets change: warm isolates booted with older secrets are not used again.
  secrets_revision integer NOT NULL DEFAULT 0,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, name),
  UNIQUE (org_id, id)
);
CREATE INDEX functions_org_created ON functions (org_id, created_at DESC, id DESC);

CREATE TABLE function_deployments (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  function_id text NOT NULL REFERENCES functions (id) ON DELETE CASCADE,
  version integer NOT NULL CHECK (version > 0),
  entrypoint text NOT NULL,
  auth text NOT NULL CHECK (auth IN ('key', 'public')),
  -- { memory_mb, cpu_time_ms, wall_time_ms }, resolved against the operator's defaults at deploy.
  limits jsonb NOT NULL,
  -- The bundle esbuild-wasm made of the upload, and what it was made from (path → bytes, sha256).
  code text NOT NULL,
  code_sha256 text NOT NULL,
  files jsonb NOT NULL,
  warnings jsonb NOT NULL DEFAULT '[]',
  -- V8 code cache this server produced for `code` (machine code: never taken from a tenant),
  -- valid only for the V8 build named by cached_data_tag.
  cached_data text, -- base64
  cached_data_tag text,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (function_id, version)
);
CREATE INDEX function_deployments_org_function ON function_deployments (org_id, function_id, version DESC);

CREATE TABLE function_secrets (
  org_id text NOT NULL,
  function_id text NOT NULL REFERENCES functions (id) ON DELETE CASCADE,
  name text NOT NULL,
  -- Sealed (core/secret-box.ts); never returned by the API.
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (function_id, name)
);

CREATE TABLE function_logs (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  function_id text NOT NULL REFERENCES functions (id) ON DELETE CASCADE,
  version integer NOT NULL,
  request_id text NOT NULL,
  level text NOT NULL CHECK (level IN ('debug', 'info', 'log', 'warn', 'error')),
  message text NOT NULL,
  -- Order of the line within its invocation (lines of one request share a timestamp often).
  seq integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX function_logs_org_function_created ON function_logs (org_id, function_id, created_at DESC, seq DESC);
CREATE INDEX function_logs_request ON function_logs (org_id, request_id);
CREATE INDEX function_logs_created ON function_logs (created_at);
