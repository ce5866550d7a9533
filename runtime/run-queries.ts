import {
  recordEvents,
  selectPage,
  addTimeBounds,
  SqlWhere,
  type ListQuery,
  type Page,
} from "../engines/index.ts";
import { claimDue, type Queryable, type QueueTable, type Store } from "../store/index.ts";
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

/**
 * The runs as a queue: pending and running ones are live (a running one is leased to a
 * worker). A leased run becomes `running` and has its attempt counted as it is claimed, so
 * a run that kills its worker cannot be retried for ever; a due run with no attempt left
 * (its worker died on the last one) is `spent`, handed back to the claimer to fail.
 */
export const RUN_QUEUE: QueueTable = {
  table: "function_runs",
  live: "status IN ('pending', 'running')",
  onLease: "status = 'running', attempts = q.attempts + 1, updated_at = $1::timestamptz",
  rules: {
    verdict: `SELECT id, CASE WHEN attempts >= max_attempts THEN 'spent' ELSE 'lease' END AS verdict,
         NULL::timestamptz AS at FROM due`,
    outcomes: { spent: null },
  },
};

export interface RunClaim {
  now: Date;
  limit: number;
  leaseMs: number;
  workerId: string;
}

/** Why a run whose worker stopped on its last attempt failed. */
const SPENT_ERROR = "the worker running it stopped before it finished";

/**
 * Claims up to `limit` due runs in one statement (`RUN_QUEUE`): each is leased to
 * `workerId` and its attempt counted before it runs. A run whose lease passed with no
 * attempt left is failed instead, with its `function.run_failed`, in a transaction of its
 * own: the event is the run as `renderRun` shows it, which SQL does not write.
 */
export async function claimDueRuns(store: Store, claim: RunClaim): Promise<RunRow[]> {
  const { leased, judged } = await claimDue<RunRow>(store, RUN_QUEUE, claim);
  if (judged.length > 0) {
    const spent = judged.map(({ row }) => row.id);
    await store.transaction(async (tx) => {
      for (const row of await failSpentRuns(tx, spent, claim.now)) await recordRunFailed(tx, row, claim.now);
    });
  }
  return leased;
}

/**
 * Fails spent runs that are still as the claim saw them: live, due, not leased, and out of
 * attempts (between the two, the lease's holder may have recorded its outcome after all).
 */
function failSpentRuns(tx: Queryable, ids: string[], now: Date): Promise<RunRow[]> {
  return tx.query<RunRow>(
    `UPDATE function_runs SET status = 'failed', next_attempt_at = NULL, locked_until = NULL, locked_by = NULL,
       last_error = $3, updated_at = $2::timestamptz
     WHERE id = ANY($1::text[]) AND ${RUN_QUEUE.live} AND attempts >= max_attempts
       AND next_attempt_at <= $2::timestamptz AND (locked_until IS NULL OR locked_until < $2::timestamptz)
     RETURNING *`,
    [ids, now.toISOString(), SPENT_ERROR],
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
