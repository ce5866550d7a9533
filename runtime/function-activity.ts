import { AppError, type Clock } from "../core/index.ts";
import type { ListQuery, Page } from "../engines/index.ts";
import type { Queryable, Store } from "../store/index.ts";
import { requireFunction } from "./function-queries.ts";
import { renderRun, type RunRow } from "./function-rows.ts";
import type { FunctionLog, FunctionRun, Trigger } from "./function-schemas.ts";
import { selectLogPage } from "./log-queries.ts";
import { findRun, notifyRunWorkers, requeueFailedRun, selectRunPage } from "./run-queries.ts";
import { insertCronRuns } from "./triggers.ts";

/**
 * What a function did: its console lines, and its trigger runs (event and cron), which a
 * failed one can be retried by hand and a cron schedule started now.
 */

export interface FunctionActivity {
  logs(orgId: string, ref: string, query: ListQuery): Promise<Page<FunctionLog>>;
  runs(orgId: string, ref: string, query: ListQuery): Promise<Page<FunctionRun>>;
  run(orgId: string, ref: string, runId: string): Promise<FunctionRun>;
  /** Queues a failed run again, with a fresh set of attempts. */
  retryRun(orgId: string, ref: string, runId: string): Promise<FunctionRun>;
  /** Queues a run of one of the function's cron schedules now, as if it had fallen due. */
  startRun(orgId: string, ref: string, input: { schedule?: string }): Promise<FunctionRun>;
}

export interface ActivityDeps {
  store: Store;
  clock: Clock;
}

export function createFunctionActivity(deps: ActivityDeps): FunctionActivity {
  const { store, clock } = deps;
  return {
    async logs(orgId, ref, query) {
      const fn = await requireFunction(store, orgId, ref);
      return selectLogPage(store, orgId, fn.id, query);
    },

    async runs(orgId, ref, query) {
      const fn = await requireFunction(store, orgId, ref);
      return selectRunPage(store, orgId, fn.id, query);
    },

    async run(orgId, ref, runId) {
      const fn = await requireFunction(store, orgId, ref);
      return renderRun(await requireRun(store, orgId, fn.id, runId));
    },

    async retryRun(orgId, ref, runId) {
      const fn = await requireFunction(store, orgId, ref);
      const run = await requireRun(store, orgId, fn.id, runId);
      if (run.status !== "failed") {
        throw new AppError("conflict", `Run '${runId}' is ${run.status}; only a failed run can be retried`);
      }
      const row = await requeueFailedRun(store, orgId, fn.id, runId, clock.now());
      if (!row) throw new AppError("conflict", `Run '${runId}' changed meanwhile; read it again`);
      await notifyRunWorkers(store);
      return renderRun(row);
    },

    async startRun(orgId, ref, input) {
      const fn = await requireFunction(store, orgId, ref);
      const schedule = chooseSchedule(fn.name, fn.triggers, input.schedule);
      const [run] = await insertCronRuns(store, clock.now(), [{ orgId, functionId: fn.id, schedule }]);
      if (!run) throw new AppError("conflict", `A run of '${schedule}' was started at this very moment`);
      return renderRun(run);
    },
  };
}

async function requireRun(db: Queryable, orgId: string, functionId: string, runId: string): Promise<RunRow> {
  const run = await findRun(db, orgId, functionId, runId);
  if (!run) throw new AppError("not_found", `No such run: '${runId.slice(0, 100)}'`);
  return run;
}

/** The cron schedule a `POST …/runs` names, or the function's only one (422 otherwise). */
function chooseSchedule(name: string, triggers: readonly Trigger[], asked: string | undefined): string {
  const schedules = triggers.flatMap((t) => (t.type === "cron" ? [t.schedule] : []));
  const schedule = asked ?? (schedules.length === 1 ? schedules[0] : undefined);
  const refuse = (code: string, message: string) =>
    new AppError("validation_failed", message, { errors: [{ param: "schedule", code, message }] });
  if (schedules.length === 0) {
    throw refuse("no_cron_trigger", `Function '${name}' has no cron trigger to run`);
  }
  if (schedule === undefined) {
    throw refuse(
      "required",
      `Function '${name}' has ${schedules.length} schedules: name one of ${list(schedules)}`,
    );
  }
  if (!schedules.includes(schedule)) {
    throw refuse(
      "unknown_schedule",
      `Function '${name}' has no schedule '${schedule}': one of ${list(schedules)}`,
    );
  }
  return schedule;
}

const list = (schedules: string[]) => schedules.map((schedule) => `'${schedule}'`).join(", ");
