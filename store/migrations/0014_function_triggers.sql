-- Triggers beyond HTTP: a deployment's event subscriptions and cron schedules, and the
-- queue of runs they make, claimed like webhook deliveries (FOR UPDATE SKIP LOCKED + lease).

ALTER TABLE function_deployments
  -- [{type: "event", events: [...]}, {type: "cron", schedule, timezone}], checked at deploy.
  ADD COLUMN triggers jsonb NOT NULL DEFAULT '[]',
  -- The API key that deployed it: trigger runs act as that key (its scopes as they are then).
  ADD COLUMN deployed_by text;

-- The serving deployment's triggers, kept on the function (by deploy and rollback) so the
-- event fan-out and the cron tick read one indexed row per subscribed function.
ALTER TABLE functions
  ADD COLUMN event_types text[],
  ADD COLUMN crons jsonb;
CREATE INDEX functions_org_event_types ON functions (org_id) WHERE event_types IS NOT NULL;
CREATE INDEX functions_crons ON functions (id) WHERE crons IS NOT NULL;

CREATE TABLE function_runs (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  function_id text NOT NULL REFERENCES functions (id) ON DELETE CASCADE,
  trigger text NOT NULL CHECK (trigger IN ('event', 'cron')),
  -- An event run: the event it answers (one run per function and event).
  event_id text,
  event_type text,
  -- A cron run: the schedule and the minute it fell due (one run per function, schedule and minute).
  schedule text,
  scheduled_for timestamptz,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL CHECK (max_attempts > 0),
  next_attempt_at timestamptz,
  -- The lease of the worker running it: past this instant another worker may take it.
  locked_until timestamptz,
  locked_by text,
  -- The last attempt: its deployment, its request id (its console lines carry it), its outcome.
  version integer,
  request_id text,
  last_status_code integer,
  last_error text,
  duration_ms integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (function_id, event_id),
  UNIQUE (function_id, schedule, scheduled_for)
);
CREATE INDEX function_runs_due ON function_runs (next_attempt_at) WHERE status IN ('pending', 'running');
CREATE INDEX function_runs_function ON function_runs (org_id, function_id, created_at DESC, id DESC);
CREATE INDEX function_runs_created ON function_runs (created_at);

-- Fan-out: every event inserted becomes one run per function whose serving deployment
-- subscribes to it, in the same statement and transaction as the event (as webhook_fan_out).
CREATE FUNCTION function_event_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO function_runs (id, org_id, function_id, trigger, event_id, event_type, max_attempts,
                             next_attempt_at, created_at, updated_at)
  SELECT 'frun_' || replace(gen_random_uuid()::text, '-', ''), e.org_id, f.id, 'event', e.id, e.type, 5,
         e.created_at, e.created_at, e.created_at
  FROM new_rows e
  JOIN functions f ON f.org_id = e.org_id AND f.event_types IS NOT NULL
  WHERE e.type <> 'webhook_endpoint.test'
    AND (e.type = ANY (f.event_types) OR split_part(e.type, '.', 1) || '.*' = ANY (f.event_types))
    -- A function is not run by the failure of its own run (that would loop).
    AND NOT (e.type = 'function.run_failed' AND e.data -> 'object' ->> 'function_id' = f.id)
  ON CONFLICT DO NOTHING;
  IF FOUND THEN
    PERFORM pg_notify('tessera_function_runs', '');
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER events_function_fan_out AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION function_event_fan_out();
