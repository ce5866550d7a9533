import { newId } from "../core/index.ts";
import { claimDue, type Queryable, type QueueTable, type Row, type Store } from "../store/index.ts";
import type { WebhookEndpointRow } from "./endpoints.ts";

/**
 * The delivery queue's SQL, one named function per query. Workers claim due rows in one
 * statement with `FOR UPDATE SKIP LOCKED` (graphile-worker's `get_job`; store's
 * `claimDue`) and hold them by a lease (`locked_until`), not by an open transaction: a
 * worker killed mid-send gives its work back when the lease passes, because the claim
 * takes rows whose lease has expired. That is the whole stuck-lease recovery.
 */

export const NOTIFY_CHANNEL = "tessera_webhooks";

export interface DeliveryRow {
  id: string;
  org_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
  next_attempt_at: Date | null;
  locked_until: Date | null;
  locked_by: string | null;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The endpoint of a claimed delivery, its whole row. */
export type EndpointDeliveryRow = WebhookEndpointRow;

export interface ClaimOptions {
  now: Date;
  limit: number;
  leaseMs: number;
  workerId: string;
}

export interface Claimed {
  /** Leased to this worker until `now + leaseMs`. */
  deliveries: DeliveryRow[];
  endpoints: Map<string, EndpointDeliveryRow>;
}

/** Why a delivery claimed for a disabled endpoint is closed without an attempt. */
export const ENDPOINT_DISABLED_ERROR = "endpoint disabled";

/**
 * The deliveries as a queue: pending ones are live (waiting, or leased to a worker sending
 * them). Its rules, judged in the claim statement (store's `claimDue`): a delivery whose
 * endpoint is disabled (or gone) is closed as failed, without an attempt (re-enable it,
 * then `recover`); one whose endpoint has a `rate_limit_per_s` is handed back to
 * `claimDueDeliveries`, which spends the endpoint's budget (`claimRateLimited`).
 */
export const DELIVERY_QUEUE: QueueTable = {
  table: "webhook_deliveries",
  live: "status = 'pending'",
  rules: {
    with: `endpoint AS MATERIALIZED (
         SELECT id, enabled, rate_limit_per_s FROM webhook_endpoints
         WHERE id IN (SELECT endpoint_id FROM due)
       )`,
    verdict: `SELECT d.id,
         CASE WHEN NOT coalesce(e.enabled, false) THEN 'disabled'
              WHEN e.rate_limit_per_s IS NOT NULL THEN 'rate_limited' ELSE 'lease' END AS verdict,
         NULL::timestamptz AS at
       FROM due d LEFT JOIN endpoint e ON e.id = d.endpoint_id`,
    outcomes: {
      disabled: "status = 'failed', next_attempt_at = NULL, last_error = $5, updated_at = $1::timestamptz",
      rate_limited: null,
    },
    params: [ENDPOINT_DISABLED_ERROR],
  },
};

/**
 * Claims up to `limit` due deliveries: one statement (`DELIVERY_QUEUE`), then one read of
 * the endpoints of those leased. An endpoint deleted in between took its deliveries with
 * it (cascade): they are dropped, there is nothing left to send.
 *
 * Deliveries to a rate-limited endpoint take a transaction of their own
 * (`claimRateLimited`). Counting an endpoint's sends inside the one statement cost every
 * claim, limited or not, ~200 ms: PostgreSQL plans a statement whole, the counts' estimated
 * cost crossed `jit_above_cost`, and it compiled them each time.
 */
export async function claimDueDeliveries(store: Store, options: ClaimOptions): Promise<Claimed> {
  const { leased, judged } = await claimDue<DeliveryRow>(store, DELIVERY_QUEUE, options);
  const limited = judged.map(({ row }) => row);
  const deliveries =
    limited.length === 0 ? leased : [...leased, ...(await claimRateLimited(store, limited, options))];
  if (deliveries.length === 0) return { deliveries: [], endpoints: new Map() };
  const endpoints = await endpointsById(store, [...new Set(deliveries.map((d) => d.endpoint_id))]);
  return { deliveries: deliveries.filter((d) => endpoints.has(d.endpoint_id)), endpoints };
}

/**
 * Leases deliveries to rate-limited endpoints within each endpoint's budget, in order of
 * due time, and pushes the rest to later seconds: the k-th over the limit waits ⌈k / limit⌉
 * seconds. The rows are locked again (still due, still unleased: another worker may have
 * taken them meanwhile), then the endpoints, so two workers cannot spend one budget.
 */
async function claimRateLimited(
  store: Store,
  rows: DeliveryRow[],
  options: ClaimOptions,
): Promise<DeliveryRow[]> {
  return store.transaction(async (tx) => {
    const due = await relockDue(
      tx,
      rows.map((row) => row.id),
      options.now,
    );
    if (due.length === 0) return [];
    const budgets = await rateBudgets(tx, [...new Set(due.map((d) => d.endpoint_id))], options.now);
    const deferred: Array<{ id: string; at: Date }> = [];
    const kept: string[] = [];
    for (const delivery of due) {
      const budget = budgets.get(delivery.endpoint_id);
      if (budget) {
        budget.used++;
        if (budget.used > budget.limit) {
          const seconds = Math.ceil((budget.used - budget.limit) / budget.limit);
          deferred.push({ id: delivery.id, at: new Date(options.now.getTime() + seconds * 1000) });
          continue;
        }
      }
      kept.push(delivery.id);
    }
    await deferDeliveries(tx, deferred);
    return lease(tx, kept, options);
  });
}

function relockDue(tx: Queryable, ids: string[], now: Date) {
  return tx.query<{ id: string; endpoint_id: string }>(
    `SELECT id, endpoint_id FROM webhook_deliveries
     WHERE id = ANY($1::text[]) AND ${DELIVERY_QUEUE.live} AND next_attempt_at <= $2::timestamptz
       AND (locked_until IS NULL OR locked_until < $2::timestamptz)
     ORDER BY next_attempt_at, id
     FOR UPDATE SKIP LOCKED`,
    [ids, now.toISOString()],
  );
}

/**
 * Sends left this second for each rate-limited endpoint: attempts started in the last
 * second plus sends in flight. The endpoint rows are locked for the rest of the claim.
 */
async function rateBudgets(
  tx: Queryable,
  endpointIds: string[],
  now: Date,
): Promise<Map<string, { limit: number; used: number }>> {
  const rows = await tx.query<{ id: string; limit: number; used: number }>(
    `SELECT w.id, w.rate_limit_per_s AS limit,
            (SELECT count(*)::int FROM webhook_attempts a
              WHERE a.org_id = w.org_id AND a.endpoint_id = w.id AND a.started_at > $2::timestamptz)
          + (SELECT count(*)::int FROM webhook_deliveries d
              WHERE d.endpoint_id = w.id AND d.locked_until > $3::timestamptz) AS used
     FROM webhook_endpoints w
     WHERE w.id = ANY($1::text[]) AND w.enabled AND w.rate_limit_per_s IS NOT NULL
     ORDER BY w.id FOR NO KEY UPDATE OF w`,
    [endpointIds.sort(), new Date(now.getTime() - 1000).toISOString(), now.toISOString()],
  );
  return new Map(rows.map((row) => [row.id, { limit: row.limit, used: row.used }]));
}

async function deferDeliveries(tx: Queryable, deferred: Array<{ id: string; at: Date }>): Promise<void> {
  if (deferred.length === 0) return;
  await tx.query(
    `UPDATE webhook_deliveries d SET next_attempt_at = v.at
     FROM unnest($1::text[], $2::timestamptz[]) AS v(id, at) WHERE d.id = v.id`,
    [deferred.map((d) => d.id), deferred.map((d) => d.at.toISOString())],
  );
}

function lease(tx: Queryable, ids: string[], options: ClaimOptions): Promise<DeliveryRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return tx.query<DeliveryRow>(
    `UPDATE webhook_deliveries SET locked_until = $2::timestamptz, locked_by = $3
     WHERE id = ANY($1::text[]) RETURNING *`,
    [ids, new Date(options.now.getTime() + options.leaseMs).toISOString(), options.workerId],
  );
}

async function endpointsById(db: Queryable, ids: string[]): Promise<Map<string, EndpointDeliveryRow>> {
  const rows = await db.query<EndpointDeliveryRow>(
    "SELECT * FROM webhook_endpoints WHERE id = ANY($1::text[])",
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Hands deliveries back without an attempt (a worker stopping with deliveries claimed ahead):
 * this worker's leases on pending ones are released and the workers woken, so another
 * takes them at once instead of after the lease.
 */
export async function releaseDeliveries(db: Queryable, ids: string[], workerId: string): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `WITH released AS (
       UPDATE webhook_deliveries SET locked_until = NULL, locked_by = NULL
       WHERE id = ANY($1::text[]) AND locked_by = $2 AND ${DELIVERY_QUEUE.live}
       RETURNING 1
     )
     SELECT pg_notify($3, '') FROM (SELECT 1 WHERE EXISTS (SELECT 1 FROM released)) AS any_released`,
    [ids, workerId, NOTIFY_CHANNEL],
  );
}

export interface AttemptRecord {
  delivery: DeliveryRow;
  workerId: string;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  error: string | null;
  /** What the delivery becomes. */
  status: "pending" | "succeeded" | "failed";
  /** When pending: the next attempt. */
  nextAttemptAt: Date | null;
  now: Date;
}

/**
 * Records attempts and their outcomes, any number in one statement (so one round trip,
 * atomic without a transaction of its own): each delivery's new state, its attempt row,
 * and after a success the end of its endpoint's failing run. An attempt's number comes
 * from its row (`attempts + 1` under the row lock), so an attempt made by a worker whose
 * lease had passed still gets its own number. A final delivery stays final; only this
 * worker's lease is released. Deliveries in one call must be distinct. Returns how many
 * were recorded (a delivery whose endpoint was deleted meanwhile is gone).
 */
export async function recordAttempts(db: Queryable, records: readonly AttemptRecord[]): Promise<number> {
  if (records.length === 0) return 0;
  const column = <T>(pick: (record: AttemptRecord) => T) => records.map(pick);
  const [row] = await db.query<{ n: number }>(
    `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[],
         $6::int[], $7::text[], $8::int[], $9::text[], $10::text[], $11::timestamptz[])
         AS i(id, attempt_id, status, next_attempt_at, started_at, status_code, error, duration_ms,
              response_headers, response_body, now)
     ), delivery AS (
       UPDATE webhook_deliveries d SET
         attempts = d.attempts + 1,
         status = CASE WHEN d.status = 'pending' THEN i.status ELSE d.status END,
         next_attempt_at = CASE WHEN d.status = 'pending' THEN i.next_attempt_at ELSE d.next_attempt_at END,
         last_attempt_at = i.started_at, last_status_code = i.status_code, last_error = i.error,
         locked_until = CASE WHEN d.locked_by = $12 THEN NULL ELSE d.locked_until END,
         locked_by = CASE WHEN d.locked_by = $12 THEN NULL ELSE d.locked_by END,
         updated_at = i.now
       FROM input i WHERE d.id = i.id
       RETURNING d.id, d.attempts, d.org_id, d.endpoint_id, i.status AS outcome
     ), attempt AS (
       INSERT INTO webhook_attempts (id, org_id, delivery_id, endpoint_id, attempt, started_at, duration_ms,
         status_code, response_headers, response_body, error)
       SELECT i.attempt_id, d.org_id, d.id, d.endpoint_id, d.attempts, i.started_at, i.duration_ms,
              i.status_code, i.response_headers::jsonb, i.response_body, i.error
       FROM delivery d JOIN input i ON i.id = d.id
     ), healthy AS (
       UPDATE webhook_endpoints SET failing_since = NULL
       WHERE id IN (SELECT endpoint_id FROM delivery WHERE outcome = 'succeeded') AND failing_since IS NOT NULL
     )
     SELECT count(*)::int AS n FROM delivery`,
    [
      column((r) => r.delivery.id),
      column(() => newId("wha")),
      column((r) => r.status),
      column((r) => r.nextAttemptAt?.toISOString() ?? null),
      column((r) => r.startedAt.toISOString()),
      column((r) => r.statusCode),
      column((r) => r.error),
      column((r) => r.durationMs),
      column((r) => (r.responseHeaders ? JSON.stringify(r.responseHeaders) : null)),
      column((r) => r.responseBody),
      column((r) => r.now.toISOString()),
      records[0]!.workerId,
    ],
  );
  return row?.n ?? 0;
}

/** Starts the endpoint's failing run at `at` unless one is already running. */
export async function markEndpointFailing(tx: Queryable, endpointId: string, at: Date): Promise<void> {
  await tx.query(
    "UPDATE webhook_endpoints SET failing_since = $2::timestamptz WHERE id = $1 AND failing_since IS NULL",
    [endpointId, at.toISOString()],
  );
}

export type DisabledReason = "gone" | "failing";

/**
 * Disables an enabled endpoint; with `failingBefore`, only when its failing run
 * began before that instant. Returns the updated row, or undefined when nothing changed.
 */
export async function disableEndpoint(
  tx: Queryable,
  endpointId: string,
  reason: DisabledReason,
  now: Date,
  failingBefore?: Date,
): Promise<Row | undefined> {
  const [row] = await tx.query(
    `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2, updated_at = $3::timestamptz
     WHERE id = $1 AND enabled AND ($4::timestamptz IS NULL OR failing_since < $4::timestamptz)
     RETURNING *`,
    [endpointId, reason, now.toISOString(), failingBefore?.toISOString() ?? null],
  );
  return row;
}

/** Enabled endpoints whose failing run began before `before` (the housekeeping sweep). */
export async function longFailingEndpoints(db: Queryable, before: Date): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    "SELECT id FROM webhook_endpoints WHERE enabled AND failing_since < $1::timestamptz",
    [before.toISOString()],
  );
  return rows.map((row) => row.id);
}

/** Retention: deliveries created before `before`, with their attempts (cascade). */
export async function purgeDeliveries(db: Queryable, before: Date): Promise<number> {
  const rows = await db.query(
    "DELETE FROM webhook_deliveries WHERE created_at < $1::timestamptz RETURNING 1",
    [before.toISOString()],
  );
  return rows.length;
}

/** Wakes every listening worker (delivered at commit when called in a transaction). */
export async function notifyWorkers(db: Queryable): Promise<void> {
  await db.query("SELECT pg_notify($1, '')", [NOTIFY_CHANNEL]);
}
