-- The trace an event was recorded in (a W3C traceparent), so its webhook deliveries' spans link to the
-- request that made it (docs/tracing.md). Filled from the transaction's `tessera.traceparent`, which the
-- store sets only while tracing is on and the trace is sampled (store/trace.ts); null otherwise, and on
-- the rows already there. A setting left from an earlier transaction of the session reads as ''.
ALTER TABLE events ADD COLUMN traceparent text DEFAULT nullif(current_setting('tessera.traceparent', true), '');
