import { hostname } from "node:os";
import {
  createWorkLoop,
  disposable,
  randomBase62,
  withDeadline,
  type Clock,
  type Disposable,
  type FunctionConfig,
  type Logger,
} from "../core/index.ts";
import {
  eventsById,
  findPrincipalByKeyId,
  renderEvent,
  rfcOrNull,
  type EventRow,
  type KeyPrincipal,
} from "../engines/index.ts";
import { nextClaimable, type Queryable, type Store } from "../store/index.ts";
import type { RunRow } from "./function-rows.ts";
import type { RunStatus } from "./function-schemas.ts";
import { invokeAsTrigger } from "./function-trigger.ts";
import type { FunctionInvoker } from "./invoke.ts";
import {
  claimDueRuns,
  recordRunFailed,
  RUN_QUEUE,
  RUNS_CHANNEL,
  servingDeployers,
  updateRunOutcome,
} from "./run-queries.ts";

/**
 * The run worker: claims due trigger runs (event and cron) with `FOR UPDATE SKIP LOCKED`
 * and a lease, as the webhook worker claims deliveries, and runs each as a `POST` to the
 * function. 2xx succeeds; a fault, 429 or 5xx is retried while attempts remain (event
 * runs: 5 in all, over about 71 minutes); anything else fails. A run that fails for good
 * records `function.run_failed`. Any number of workers, in any number of processes, share
 * the queue; a worker killed mid-run gives the run back when its lease passes.
 */

/** Retry delays after the 1st, 2nd, … failed attempt (±20 % jitter). */
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

  const attempt = async (run: RunRow, { event, principal }: RunContext): Promise<Outcome> => {
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
    return invokeAsTrigger(invoker, fn, {
      trigger: run.trigger,
      payload,
      runId: run.id,
      attempt: run.attempts,
      eventId: run.event_id ?? null,
      principal,
      origin: options.origin,
    });
  };

  const runOne = async (run: RunRow, context: RunContext) => {
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

  return disposable({
    start() {
      loop.start();
      log.info("function run worker started", { concurrency, lease_ms: leaseMs });
    },
    runOnce: () => loop.runOnce(),
    dispose: () => loop.dispose(),
  });
}

/** What one run is given besides its row: its event, and the caller it acts as. */
interface RunContext {
  event: EventRow | undefined;
  principal: KeyPrincipal | undefined;
}

/**
 * The events of a claimed batch and the principals its runs act as (each function's
 * serving deployment's `deployed_by`, while that key is not revoked), in a few queries.
 */
async function contextsOf(db: Queryable, runs: RunRow[]): Promise<RunContext[]> {
  const eventIds = runs.flatMap((run) => (run.event_id ? [run.event_id] : []));
  const functions = new Map(
    runs.map((run) => [run.function_id, { orgId: run.org_id, functionId: run.function_id }]),
  );
  const [eventById, deployers] = await Promise.all([
    eventIds.length > 0 ? eventsById(db, eventIds) : new Map<string, EventRow>(),
    servingDeployers(db, [...functions.values()]),
  ]);
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

/** Records an attempt's outcome, if the run is still leased to this worker. */
async function record(
  store: Store,
  run: RunRow,
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
    updateRunOutcome(db, {
      runId: run.id,
      workerId,
      status: next,
      nextAttemptAt: nextAt,
      version: outcome.version,
      requestId: outcome.requestId,
      statusCode: status,
      error: error?.slice(0, MAX_ERROR_CHARS) ?? null,
      durationMs: outcome.durationMs,
      now,
    });
  // One statement, unless the run failed for good: then its event is recorded with it.
  if (next !== "failed") return void (await update(store));
  await store.transaction(async (tx) => {
    const row = await update(tx);
    if (row) await recordRunFailed(tx, row, now);
  });
}
