import {
  recordEvents,
  selectPage,
  addTimeBounds,
  SqlWhere,
  type ListQuery,
  type Page,
} from "../engines/index.ts";
import type { Queryable, QueueTable, Store } from "../store/index.ts";
import { renderRun, type RunRow } from "./function-rows.ts";
import type { FunctionRun, RunStatus } from "./function-schemas.ts";

/**
 * The SQL of trigger runs, one named function per query: the run worker's claim and
 * record (leases, as webhooks/delivery-queries.ts), `GET …/runs`, a retry by hand, and
 * retention. Runs are queued by the events fan-out (migration 0014) and the cron tick
 * (runtime/triggers.ts).
 */

/** Workers LISTEN here; the fan-out trigger and the cron tick NOTIFY. */
export const RUNS_CHANNEL = "tessera_function_runs";

/** The runs as a queue: pending and running ones are live (a running one is leased to a worker). */
export const RUN_QUEUE: QueueTable = { table: "function_runs", live: "status IN ('pending', 'running')" };

export interface RunClaim {
  now: Date;
  limit: number;
  leaseMs: number;
  workerId: string;
}

/**
 * Claims up to `limit` due runs: each is leased to `workerId` and its attempt counted
 * before it runs, so a run that kills its worker cannot be retried for ever. A run whose
 * lease passed with no attempt left is failed instead (`function.run_failed`).
 */
export async function claimDueRuns(store: Store, claim: RunClaim): Promise<RunRow[]> {
  return store.transaction(async (tx) => {
    const due = await selectDueRuns(tx, claim.now, claim.limit);
    const spent = due.filter((run) => run.attempts >= run.max_attempts).map((run) => run.id);
    const kept = due.filter((run) => run.attempts < run.max_attempts).map((run) => run.id);
    for (const row of await failSpentRuns(tx, spent, claim.now)) await recordRunFailed(tx, row, claim.now);
    return leaseRuns(tx, kept, claim);
  });
}

function selectDueRuns(tx: Queryable, now: Date, limit: number) {
  return tx.query<{ id: string; attempts: number; max_attempts: number }>(
    `SELECT id, attempts, max_attempts FROM function_runs
     WHERE status IN ('pending', 'running') AND next_attempt_at <= $1::timestamptz
       AND (locked_until IS NULL OR locked_until < $1::timestamptz)
     ORDER BY next_attempt_at
     LIMIT $2
     FOR UPDATE SKIP LOCKED`,
    [now.toISOString(), limit],
  );
}

function failSpentRuns(tx: Queryable, ids: string[], now: Date): Promise<RunRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return tx.query<RunRow>(
    `UPDATE function_runs SET status = 'failed', next_attempt_at = NULL, locked_until = NULL, locked_by = NULL,
       last_error = 'the worker running it stopped before it finished', updated_at = $2::timestamptz
     WHERE id = ANY($1::text[]) RETURNING *`,
    [ids, now.toISOString()],
  );
}

function leaseRuns(tx: Queryable, ids: string[], claim: RunClaim): Promise<RunRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return tx.query<RunRow>(
    `UPDATE function_runs SET status = 'running', attempts = attempts + 1, locked_until = $2::timestamptz,
       locked_by = $3, updated_at = $4::timestamptz
     WHERE id = ANY($1::text[]) RETURNING *`,
    [
      ids,
      new Date(claim.now.getTime() + claim.leaseMs).toISOString(),
      claim.workerId,
      claim.now.toISOString(),
    ],
  );
}

/** A run that failed for good: its event, in the transaction that failed it. */
export function recordRunFailed(tx: Queryable, row: RunRow, now: Date): Promise<string[]> {
  return recordEvents(tx, row.org_id, now, [{ type: "function.run_failed", object: renderRun(row) }]);
}

/** What one attempt came to, as the run row keeps it. */
export interface RunOutcomeUpdate {
  runId: string;
  /** Only the worker holding the lease records. */
  workerId: string;
  status: RunStatus;
  nextAttemptAt: Date | null;
  version: number | null;
  requestId: string | null;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  now: Date;
}

/** Records an attempt's outcome and ends the lease, if the run is still leased to this worker. */
export async function updateRunOutcome(db: Queryable, u: RunOutcomeUpdate): Promise<RunRow | undefined> {
  const [row] = await db.query<RunRow>(
    `UPDATE function_runs SET status = $3, next_attempt_at = $4::timestamptz, locked_until = NULL,
       locked_by = NULL, version = $5, request_id = $6, last_status_code = $7, last_error = $8,
       duration_ms = $9, updated_at = $10::timestamptz
     WHERE id = $1 AND locked_by = $2 RETURNING *`,
    [
      u.runId,
      u.workerId,
      u.status,
      u.nextAttemptAt?.toISOString() ?? null,
      u.version,
      u.requestId,
      u.statusCode,
      u.error,
      u.durationMs,
      u.now.toISOString(),
    ],
  );
  return row;
}

/** Who each function's serving deployment was deployed by (trigger runs act as that key). */
export function servingDeployers(
  db: Queryable,
  functions: ReadonlyArray<{ orgId: string; functionId: string }>,
): Promise<Array<{ id: string; org_id: string; deployed_by: string | null }>> {
  return db.query(
    `SELECT f.id, f.org_id, d.deployed_by FROM functions f
     JOIN function_deployments d ON d.function_id = f.id AND d.version = f.active_version
     WHERE (f.org_id, f.id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [functions.map((fn) => fn.orgId), functions.map((fn) => fn.functionId)],
  );
}

/** `GET /v1/functions/{name}/runs`: `status`, `trigger` and time filters, newest first by default. */
export function selectRunPage(
  db: Queryable,
  orgId: string,
  functionId: string,
  query: ListQuery,
): Promise<Page<FunctionRun>> {
  const where = new SqlWhere();
  where.add(`org_id = ${where.bind(orgId)}`);
  where.add(`function_id = ${where.bind(functionId)}`);
  for (const column of ["status", "trigger"] as const) {
    const values = query.filters[column];
    if (values?.length) where.add(`${column} = ANY(${where.bind(values)}::text[])`);
  }
  addTimeBounds(where, query, { created: "created_at" });
  const order = query.sort.descending ? "DESC" : "ASC";
  const orderBy = `created_at ${order}, id ${order}`;
  return selectPage(db, { from: "function_runs", where, orderBy }, query, (row: RunRow) => renderRun(row));
}

export async function findRun(
  db: Queryable,
  orgId: string,
  functionId: string,
  runId: string,
): Promise<RunRow | undefined> {
  const [row] = await db.query<RunRow>(
    "SELECT * FROM function_runs WHERE org_id = $1 AND function_id = $2 AND id = $3",
    [orgId, functionId, runId],
  );
  return row;
}

/** Queues a failed run again with a fresh set of attempts; undefined when it is not failed (now). */
export async function requeueFailedRun(
  db: Queryable,
  orgId: string,
  functionId: string,
  runId: string,
  now: Date,
): Promise<RunRow | undefined> {
  const [row] = await db.query<RunRow>(
    `UPDATE function_runs SET status = 'pending', attempts = 0, next_attempt_at = $4::timestamptz,
       updated_at = $4::timestamptz
     WHERE org_id = $1 AND function_id = $2 AND id = $3 AND status = 'failed' RETURNING *`,
    [orgId, functionId, runId, now.toISOString()],
  );
  return row;
}

/** Wakes every listening run worker (delivered at commit when called in a transaction). */
export async function notifyRunWorkers(db: Queryable): Promise<void> {
  await db.query("SELECT pg_notify($1, '')", [RUNS_CHANNEL]);
}

/** Deletes finished runs created before `before`; returns how many. */
export async function purgeFunctionRuns(db: Queryable, before: Date): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `WITH gone AS (DELETE FROM function_runs WHERE created_at < $1::timestamptz
       AND status IN ('succeeded', 'failed') RETURNING 1) SELECT count(*) AS n FROM gone`,
    [before.toISOString()],
  );
  return Number(rows[0]?.n ?? 0);
}
