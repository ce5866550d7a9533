import { hostname } from "node:os";
import {
  createWorkLoop,
  isAppError,
  randomBase62,
  withDeadline,
  type Clock,
  type Disposable,
  type FunctionConfig,
  type Logger,
} from "../core/index.ts";
import {
  findPrincipalByKeyId,
  recordEvents,
  renderEvent,
  rfc,
  rfcOrNull,
  type KeyPrincipal,
} from "../engines/index.ts";
import { nextClaimable, type Queryable, type QueueTable, type Row, type Store } from "../store/index.ts";
import type { FunctionRun, RunStatus } from "./function-schemas.ts";
import type { FunctionInvoker, FunctionResponse } from "./invoke.ts";
import { RUNS_CHANNEL } from "./triggers.ts";

/**
 * The run worker: claims due trigger runs (event and cron) with `FOR UPDATE SKIP LOCKED`
 * and a lease, as the webhook worker claims deliveries, and runs each as a `POST` to the
 * function. 2xx succeeds; a fault, 429 or 5xx is retried while attempts remain (event
 * runs: 5 in all, over about 71 minutes); anything else fails. A run that fails for good
 * records `function.run_failed`. Any number of workers, in any number of processes, share
 * the queue; a worker killed mid-run gives the run back when its lease passes.
 */

/** Retry delays after the 1st, 2nd, … failed attempt (±20 % jitter). */
/** The runs as a queue: pending and running ones are live (a running one is leased to a worker). */
export const RUN_QUEUE: QueueTable = { table: "function_runs", live: "status IN ('pending', 'running')" };
const RETRY_DELAYS_MS = [10_000, 60_000, 600_000, 3_600_000];
const POLL_MS = 1_000;
/** A lease outlives the longest wall time a function may have by this much. */
const LEASE_MARGIN_MS = 30_000;
const MAX_ERROR_CHARS = 1_000;

export interface FunctionRunWorkerOptions {
  store: Store;
  clock: Clock;
  log: Logger;
  invoker: FunctionInvoker;
  config: FunctionConfig;
  /** The service's own URL: a run's request is for `{origin}/v1/functions/{name}/invoke`. */
  origin: string;
  concurrency?: number;
  pollMs?: number;
  random?: () => number;
}

export interface FunctionRunWorker extends Disposable {
  start(): void;
  /** Tests: claims what is due now, runs it all, records it; resolves with how many. */
  runOnce(): Promise<number>;
}

interface ClaimedRun extends Row {
  id: string;
  org_id: string;
  function_id: string;
  trigger: "event" | "cron";
  event_id: string | null;
  schedule: string | null;
  scheduled_for: Date | null;
  attempts: number;
  max_attempts: number;
}

interface Outcome {
  version: number | null;
  requestId: string | null;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** No attempt can do better (the function or the event is gone): fail now. */
  final?: boolean;
}

const gone = (what: string, version: number | null = null): Outcome => ({
  version,
  requestId: null,
  statusCode: null,
  error: `the ${what} is gone`,
  durationMs: 0,
  final: true,
});

export function createFunctionRunWorker(options: FunctionRunWorkerOptions): FunctionRunWorker {
  const { store, clock, invoker, config } = options;
  const workerId = `${hostname()}:${process.pid}:${randomBase62(6)}`;
  const log = options.log.child({ worker: workerId });
  const random = options.random ?? Math.random;
  const concurrency = options.concurrency ?? config.runConcurrency;
  const leaseMs = config.maxLimits.wall_time_ms + LEASE_MARGIN_MS;

  const attempt = async (run: ClaimedRun, { event, principal }: RunContext): Promise<Outcome> => {
    const started = performance.now();
    const requestId = `req_${randomBase62(20)}`;
    const elapsed = () => Math.round(performance.now() - started);
    const fn = await invoker.resolve(run.org_id, run.function_id);
    if (!fn) return gone("function");
    const payload =
      run.trigger === "event"
        ? event
          ? renderEvent(event)
          : undefined
        : {
            object: "cron_tick",
            schedule: run.schedule,
            scheduled_time: rfcOrNull(run.scheduled_for),
          };
    if (!payload) return gone("event (purged by its retention)", fn.version);
    const headers: Array<[string, string]> = [
      ["content-type", "application/json"],
      ["user-agent", "Tessera-Triggers/1"],
      ["tessera-trigger", run.trigger],
      ["tessera-run-id", run.id],
      ["tessera-attempt", String(run.attempts)],
    ];
    if (run.event_id) headers.push(["tessera-event-id", run.event_id]);
    try {
      const response = await invoker.invoke(fn, {
        requestId,
        method: "POST",
        url: `${options.origin}/v1/functions/${fn.name}/invoke`,
        headers,
        body: Buffer.from(JSON.stringify(payload)),
        principal,
        authorization: undefined,
        depth: 0,
      });
      await drain(response);
      return {
        version: fn.version,
        requestId,
        statusCode: response.status,
        error: null,
        durationMs: elapsed(),
      };
    } catch (error) {
      const message = isAppError(error)
        ? `${error.code}: ${error.message}`
        : `function_failed: ${String(error)}`;
      return { version: fn.version, requestId, statusCode: null, error: message, durationMs: elapsed() };
    }
  };

  const runOne = async (run: ClaimedRun, context: RunContext) => {
    const outcome = await attempt(run, context).catch((error: unknown): Outcome => ({
      version: null,
      requestId: null,
      statusCode: null,
      error: `run failed: ${(error as Error).message ?? String(error)}`,
      durationMs: 0,
    }));
    try {
      await withDeadline(
        record(store, run, outcome, clock.now(), workerId, random),
        "recording a function run",
      );
    } catch (error) {
      // The lease runs out and the run is claimed again (or failed, with no attempts left).
      log.error("function run failed to record", { run: run.id, error });
    }
  };

  const loop = createWorkLoop({
    name: "function run worker",
    log,
    concurrency,
    pollMs: options.pollMs ?? POLL_MS,
    now: () => clock.now(),
    async claim(limit) {
      const runs = await claimDueRuns(store, { now: clock.now(), limit, leaseMs, workerId });
      if (runs.length === 0) return [];
      const contexts = await withDeadline(
        contextsOf(store, runs),
        "reading function runs' events and callers",
      );
      return runs.map((run, index) => () => runOne(run, contexts[index]!));
    },
    nextDue: () => nextClaimable(store, RUN_QUEUE, clock.now()),
    ...(store.listen ? { listen: (wake) => store.listen!(RUNS_CHANNEL, wake) } : {}),
  });

  return {
    start() {
      loop.start();
      log.info("function run worker started", { concurrency, lease_ms: leaseMs });
    },
    runOnce: () => loop.runOnce(),
    dispose: () => loop.dispose(),
  };
}

/** What one run is given besides its row: its event, and the caller it acts as. */
interface RunContext {
  event: Row | undefined;
  principal: KeyPrincipal | undefined;
}

/**
 * The events of a claimed batch and the principals its runs act as (each function's
 * serving deployment's `deployed_by`, while that key is not revoked), in a few queries.
 */
async function contextsOf(db: Queryable, runs: ClaimedRun[]): Promise<RunContext[]> {
  const eventIds = runs.flatMap((run) => (run.event_id ? [run.event_id] : []));
  const [events, deployers] = await Promise.all([
    eventIds.length > 0 ? db.query("SELECT * FROM events WHERE id = ANY($1::text[])", [eventIds]) : [],
    db.query<{ id: string; org_id: string; deployed_by: string | null }>(
      `SELECT f.id, f.org_id, d.deployed_by FROM functions f
       JOIN function_deployments d ON d.function_id = f.id AND d.version = f.active_version
       WHERE f.id = ANY($1::text[])`,
      [[...new Set(runs.map((run) => run.function_id))]],
    ),
  ]);
  const eventById = new Map(events.map((row) => [row.id as string, row]));
  const principals = new Map<string, Promise<KeyPrincipal | undefined>>();
  for (const { org_id: orgId, deployed_by: keyId } of deployers) {
    if (keyId && !principals.has(keyId)) principals.set(keyId, findPrincipalByKeyId(db, orgId, keyId));
  }
  const keyOf = new Map(deployers.map((row) => [row.id, row.deployed_by]));
  return Promise.all(
    runs.map(async (run) => {
      const keyId = keyOf.get(run.function_id);
      return {
        event: run.event_id ? eventById.get(run.event_id) : undefined,
        principal: keyId ? await principals.get(keyId) : undefined,
      };
    }),
  );
}

/** Reads a streamed answer to its end (the run is over when the function's body is). */
async function drain(response: FunctionResponse): Promise<void> {
  const body = response.body;
  if (!body || typeof body === "string" || body instanceof Uint8Array) return;
  const reader = body.getReader();
  while (!(await reader.read()).done);
}

/**
 * Claims up to `limit` due runs: each is leased to `workerId` and its attempt counted
 * before it runs, so a run that kills its worker cannot be retried for ever. A run whose
 * lease passed with no attempt left is failed instead.
 */
async function claimDueRuns(
  store: Store,
  options: { now: Date; limit: number; leaseMs: number; workerId: string },
): Promise<ClaimedRun[]> {
  return store.transaction(async (tx) => {
    const now = options.now.toISOString();
    const due = await tx.query<{ id: string; attempts: number; max_attempts: number }>(
      `SELECT id, attempts, max_attempts FROM function_runs
       WHERE status IN ('pending', 'running') AND next_attempt_at <= $1::timestamptz
         AND (locked_until IS NULL OR locked_until < $1::timestamptz)
       ORDER BY next_attempt_at
       LIMIT $2
       FOR UPDATE SKIP LOCKED`,
      [now, options.limit],
    );
    const spent = due.filter((run) => run.attempts >= run.max_attempts).map((run) => run.id);
    const kept = due.filter((run) => run.attempts < run.max_attempts).map((run) => run.id);
    if (spent.length > 0) {
      const failed = await tx.query(
        `UPDATE function_runs SET status = 'failed', next_attempt_at = NULL, locked_until = NULL, locked_by = NULL,
           last_error = 'the worker running it stopped before it finished', updated_at = $2::timestamptz
         WHERE id = ANY($1::text[]) RETURNING *`,
        [spent, now],
      );
      for (const row of failed) await recordRunFailed(tx, row, options.now);
    }
    if (kept.length === 0) return [];
    return tx.query<ClaimedRun>(
      `UPDATE function_runs SET status = 'running', attempts = attempts + 1, locked_until = $2::timestamptz,
         locked_by = $3, updated_at = $4::timestamptz
       WHERE id = ANY($1::text[]) RETURNING *`,
      [kept, new Date(options.now.getTime() + options.leaseMs).toISOString(), options.workerId, now],
    );
  });
}

/** Records an attempt's outcome, if the run is still leased to this worker. */
async function record(
  store: Store,
  run: ClaimedRun,
  outcome: Outcome,
  now: Date,
  workerId: string,
  random: () => number,
): Promise<void> {
  const status = outcome.statusCode;
  const succeeded = status !== null && status >= 200 && status < 300;
  const retryable = !succeeded && (status === null || status === 429 || status >= 500);
  const again = retryable && run.attempts < run.max_attempts && !outcome.final;
  const next: RunStatus = succeeded ? "succeeded" : again ? "pending" : "failed";
  const delay = RETRY_DELAYS_MS[Math.min(run.attempts, RETRY_DELAYS_MS.length) - 1]!;
  const nextAt = again ? new Date(now.getTime() + delay * (0.8 + 0.4 * random())) : null;
  const error = outcome.error ?? (succeeded ? null : `the function answered ${status ?? "nothing"}`);
  const update = (db: Queryable) =>
    db.query(
      `UPDATE function_runs SET status = $3, next_attempt_at = $4::timestamptz, locked_until = NULL,
         locked_by = NULL, version = $5, request_id = $6, last_status_code = $7, last_error = $8,
         duration_ms = $9, updated_at = $10::timestamptz
       WHERE id = $1 AND locked_by = $2 RETURNING *`,
      [
        run.id,
        workerId,
        next,
        nextAt?.toISOString() ?? null,
        outcome.version,
        outcome.requestId,
        status,
        error?.slice(0, MAX_ERROR_CHARS) ?? null,
        outcome.durationMs,
        now.toISOString(),
      ],
    );
  // One statement, unless the run failed for good: then its event is recorded with it.
  if (next !== "failed") return void (await update(store));
  await store.transaction(async (tx) => {
    const [row] = await update(tx);
    if (row) await recordRunFailed(tx, row, now);
  });
}

function recordRunFailed(tx: Queryable, row: Row, now: Date): Promise<string[]> {
  return recordEvents(tx, row.org_id as string, now, [
    { type: "function.run_failed", object: renderRun(row) },
  ]);
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

export function renderRun(row: Row): FunctionRun {
  return {
    id: row.id as string,
    object: "function_run",
    function_id: row.function_id as string,
    trigger: row.trigger as FunctionRun["trigger"],
    event_id: (row.event_id as string | null) ?? null,
    event_type: (row.event_type as string | null) ?? null,
    schedule: (row.schedule as string | null) ?? null,
    scheduled_for: rfcOrNull(row.scheduled_for),
    status: row.status as RunStatus,
    attempts: row.attempts as number,
    max_attempts: row.max_attempts as number,
    next_attempt_at: rfcOrNull(row.next_attempt_at),
    version: (row.version as number | null) ?? null,
    request_id: (row.request_id as string | null) ?? null,
    last_status_code: (row.last_status_code as number | null) ?? null,
    last_error: (row.last_error as string | null) ?? null,
    duration_ms: (row.duration_ms as number | null) ?? null,
    created_at: rfc(row.created_at),
    updated_at: rfc(row.updated_at),
  };
}
