-- OAuth 2.0 for integrations: apps an organization registers, installations (one grant per
-- organization and app), and the authorization server's own records (codes, tokens, grants,
-- interactions), which oidc-provider reads and writes through engines/oauth/records.ts.

CREATE TABLE oauth_apps (
  id text PRIMARY KEY,
  -- The organization that registered the app (client credentials tokens act in it).
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  logo_url text,
  redirect_uris text[] NOT NULL,
  kind text NOT NULL CHECK (kind IN ('confidential', 'public')),
  -- The scopes the app may ask for; a consent grants a subset of them.
  scopes text[] NOT NULL,
  client_id text NOT NULL UNIQUE,
  -- SHA-256 of the client secret (confidential apps); the secret is shown once.
  client_secret_hash text,
  secret_last4 text,
  created_by_user text REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX oauth_apps_org ON oauth_apps (org_id, created_at DESC);

CREATE TABLE oauth_installations (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  app_id text NOT NULL REFERENCES oauth_apps (id) ON DELETE CASCADE,
  -- The authorization server's grant whose tokens act for this installation.
  grant_id text NOT NULL,
  scopes text[] NOT NULL,
  -- Who granted it; tokens stop when that user is gone or no longer a member.
  user_id text REFERENCES users (id) ON DELETE SET NULL,
  last_used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (org_id, app_id)
);
CREATE INDEX oauth_installations_grant ON oauth_installations (grant_id);

-- oidc-provider's models by name (AccessToken, RefreshToken, AuthorizationCode, Grant, Session,
-- Interaction…). Token ids are stored as their SHA-256: a row read from a backup is no credential.
CREATE TABLE oauth_records (
  model text NOT NULL,
  id text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  client_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  PRIMARY KEY (model, id)
);
CREATE INDEX oauth_records_grant ON oauth_records (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oauth_records_client ON oauth_records (client_id) WHERE client_id IS NOT NULL;
CREATE INDEX oauth_records_uid ON oauth_records (uid) WHERE uid IS NOT NULL;
CREATE INDEX oauth_records_expires ON oauth_records (expires_at);
