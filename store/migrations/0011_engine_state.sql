-- Engine state: a per-organization JSON key-value store per engine, the scratch space edge
-- functions reach as `ctx.engines.<engine>` and integrations as /v1/engines/<engine>/state.

-- `key` compares bytewise (COLLATE "C": UTF-8 byte order is code point order), so lists come
-- back in the same order on PGlite and on PostgreSQL whatever the database's locale, and the
-- primary key's index serves a prefix (a `key >= $p AND key < $next` range) in key order.
CREATE TABLE engine_state (
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  engine text NOT NULL,
  key text COLLATE "C" NOT NULL,
  value jsonb NOT NULL,
  -- 1 when the key is written first, + 1 on every later write (the ETag of the API).
  version bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, engine, key)
);

-- Entries per organization (every engine), kept by the writing transaction, so the operator's
-- cap (TESSERA_ENGINE_STATE_MAX_ENTRIES) is checked without counting rows.
CREATE TABLE engine_state_counts (
  org_id text PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  entries bigint NOT NULL
);
