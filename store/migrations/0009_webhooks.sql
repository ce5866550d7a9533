-- Webhooks: endpoints, one delivery per (event, endpoint) fanned out from the outbox
-- in the transaction that records the event, and every attempt to send it.

CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  url text NOT NULL,
  description text,
  -- Empty: every event kind. An entry `invoice.*` matches every `invoice.` kind.
  event_types text[] NOT NULL DEFAULT '{}',
  enabled boolean NOT NULL DEFAULT true,
  -- Why it was disabled: `gone` (410), `failing` (continuous failure), `manual`.
  disabled_reason text,
  signing_scheme text NOT NULL DEFAULT 'v1' CHECK (signing_scheme IN ('v1', 'v1a')),
  -- Sealed with TESSERA_SECRET (core/secret-box.ts): `whsec_…` (v1) or `whsk_…` (v1a).
  secret text NOT NULL,
  -- After a rotation the old secret keeps signing too, until it expires.
  previous_secret text,
  previous_secret_expires_at timestamptz,
  -- Null: the default schedule (webhooks/backoff.ts).
  retry_policy jsonb,
  rate_limit_per_s integer CHECK (rate_limit_per_s > 0),
  headers jsonb NOT NULL DEFAULT '{}',
  -- Start of the current unbroken run of failed attempts; null after a success.
  failing_since timestamptz,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, id)
);
CREATE INDEX webhook_endpoints_org_created ON webhook_endpoints (org_id, created_at DESC, id DESC);
CREATE INDEX webhook_endpoints_org_enabled ON webhook_endpoints (org_id) WHERE enabled;

CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  endpoint_id text NOT NULL,
  -- The message: its id is the `webhook-id` header, identical on every attempt.
  event_id text NOT NULL,
  event_type text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  -- When the next attempt is due; null once the delivery is final.
  next_attempt_at timestamptz,
  -- The lease of the worker sending it: past this instant another worker may take it.
  locked_until timestamptz,
  locked_by text,
  last_attempt_at timestamptz,
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, endpoint_id) REFERENCES webhook_endpoints (org_id, id) ON DELETE CASCADE,
  UNIQUE (endpoint_id, event_id)
);
-- The queue: pending deliveries by due time (claimed with FOR UPDATE SKIP LOCKED).
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (org_id, endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (org_id, event_id);
-- Sends in flight per endpoint (its rate limit counts them); a lease is cleared when recorded.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (endpoint_id) WHERE locked_until IS NOT NULL;

CREATE TABLE webhook_attempts (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  endpoint_id text NOT NULL,
  attempt integer NOT NULL,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  -- Null when no response came (timeout, refused, reset, blocked address).
  status_code integer,
  response_headers jsonb,
  -- The first 20 KB of the response body.
  response_body text,
  error text,
  UNIQUE (delivery_id, attempt)
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (org_id, delivery_id, attempt DESC);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (org_id, endpoint_id, started_at DESC);

-- Fan-out: every event inserted becomes one delivery per enabled endpoint whose filter
-- matches, in the same statement and transaction, so no committed event is ever missed
-- and no rolled-back one is ever sent. The test event goes only where it is sent.
-- NOTIFY is delivered at commit: workers wake on new work instead of polling for it.
CREATE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, next_attempt_at, created_at, updated_at)
  SELECT 'whd_' || replace(gen_random_uuid()::text, '-', ''), e.org_id, w.id, e.id, e.type,
         e.created_at, e.created_at, e.created_at
  FROM new_rows e
  JOIN webhook_endpoints w ON w.org_id = e.org_id AND w.enabled
  WHERE e.type <> 'webhook_endpoint.test'
    AND (cardinality(w.event_types) = 0
         OR e.type = ANY (w.event_types)
         OR split_part(e.type, '.', 1) || '.*' = ANY (w.event_types));
  IF FOUND THEN
    PERFORM pg_notify('tessera_webhooks', '');
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER events_webhook_fan_out AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_fan_out();
