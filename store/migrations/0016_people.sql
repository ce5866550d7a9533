-- People: users who sign in to the dashboard, their memberships of organizations (with a role),
-- their sessions, and one-time links (first-owner setup, invitations, password resets).

CREATE TABLE users (
  id text PRIMARY KEY,
  email text NOT NULL,
  name text NOT NULL DEFAULT '',
  -- scrypt$N$r$p$salt$hash (engines/people/passwords.ts); the password itself is never stored.
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (lower(email));

CREATE TABLE memberships (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (org_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

CREATE TABLE user_sessions (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- The organization the dashboard acts in.
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- SHA-256 of the cookie's token, and of the CSRF token the pages send back.
  token_hash text NOT NULL UNIQUE,
  csrf_hash text NOT NULL,
  user_agent text NOT NULL DEFAULT '',
  address text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  -- The absolute end; idleness ends it sooner (engines/people/sessions.ts).
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX user_sessions_user ON user_sessions (user_id, created_at DESC);

CREATE TABLE user_tokens (
  id text PRIMARY KEY,
  -- setup (the first owner), invite, reset (a password)
  purpose text NOT NULL CHECK (purpose IN ('setup', 'invite', 'reset')),
  token_hash text NOT NULL UNIQUE,
  org_id text REFERENCES organizations (id) ON DELETE CASCADE,
  email text,
  role text,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);

-- Who made a key from the dashboard.
ALTER TABLE api_keys ADD COLUMN created_by_user text REFERENCES users (id) ON DELETE SET NULL;
