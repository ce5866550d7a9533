-- SYNC, the agent: conversations, their interactions (the audit record of who asked what, what
-- SYNC read, what it proposed and said) and the actions it proposed (each single-use, approved or
-- rejected by a credential of the same organization, or expired).

CREATE TABLE sync_conversations (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- The first message, shortened: what a list of conversations shows.
  title text NOT NULL,
  turns integer NOT NULL DEFAULT 0,
  -- {type, id} of the credential that started it.
  created_by jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX sync_conversations_org_updated ON sync_conversations (org_id, updated_at DESC, id);

CREATE TABLE sync_interactions (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  conversation_id text NOT NULL REFERENCES sync_conversations (id) ON DELETE CASCADE,
  -- Its place in the conversation, from 1.
  turn integer NOT NULL,
  message text NOT NULL,
  reply text NOT NULL,
  -- completed | requires_approval | failed (requires_approval → completed once every action is decided).
  status text NOT NULL,
  -- {type: "builtin"} or {type: "llm", model, fallback?}.
  planner jsonb NOT NULL,
  -- [{object, id}]: the records the answer used.
  sources jsonb NOT NULL,
  -- The planner's own notes for follow-ups ("the first one"); never shown.
  memory jsonb,
  -- {type, id} of the credential that asked.
  asked_by jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (conversation_id, turn)
);
CREATE INDEX sync_interactions_org_created ON sync_interactions (org_id, created_at DESC, id DESC);

CREATE TABLE sync_actions (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  interaction_id text NOT NULL REFERENCES sync_interactions (id) ON DELETE CASCADE,
  -- Its place among the interaction's actions, from 1.
  position integer NOT NULL,
  tool text NOT NULL,
  arguments jsonb NOT NULL,
  preview text NOT NULL,
  -- proposed | completed | rejected | failed | expired
  status text NOT NULL,
  -- The created or changed object (completed), or the problem (failed).
  result jsonb,
  error jsonb,
  expires_at timestamptz NOT NULL,
  -- {type, id} of the credential that approved or rejected it.
  decided_by jsonb,
  decided_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX sync_actions_interaction ON sync_actions (interaction_id, position);

-- A function may offer itself to SYNC as a tool: {description, parameters (JSON Schema), read_only}.
ALTER TABLE function_deployments ADD COLUMN tool jsonb;
