import cron from "node-cron";
import { AppError, cronProblem, disposable, type Disposable, type FieldError } from "../core/index.ts";
import type { Queryable } from "../store/index.ts";
import type { RunRow } from "./function-rows.ts";
import type { Trigger } from "./function-schemas.ts";
import { notifyRunWorkers } from "./run-queries.ts";

/**
 * Triggers beyond HTTP (ARCHITECTURE.md, "Edge functions"): event subscriptions and cron
 * schedules of a deployment. The serving deployment's triggers are kept on its function
 * row (`event_types`, `crons`): the events table's fan-out trigger queues one run per
 * subscribed function in the event's own transaction, and the `function-crons` job queues
 * one per due schedule each minute. The run worker (runtime/function-runs.ts) runs them.
 */

/**
 * Event runs are retried (10 s, 1 min, 10 min, 1 h); a cron run is not: the next tick comes.
 * The events fan-out (migration 0014) writes the event runs' 5 itself; a test holds the two equal.
 */
export const EVENT_RUN_ATTEMPTS = 5;
export const CRON_RUN_ATTEMPTS = 1;

/** 422 naming every trigger that names an unknown event kind, a bad schedule or timezone. */
export function checkTriggers(triggers: readonly Trigger[], eventTypes: readonly string[]): void {
  const known = new Set(eventTypes);
  const families = new Set(eventTypes.map((type) => `${type.split(".")[0]}.*`));
  const errors: FieldError[] = [];
  for (const [index, trigger] of triggers.entries()) {
    const param = `triggers[${index}]`;
    if (trigger.type === "event") {
      for (const [i, type] of trigger.events.entries()) {
        if (known.has(type) || families.has(type)) continue;
        const message = `unknown event type '${type}'; see GET /v1/event_types`;
        errors.push({ param: `${param}.events[${i}]`, code: "unknown_event_type", message });
      }
      continue;
    }
    const fields = trigger.schedule.trim().split(/\s+/).length;
    const problem =
      cronProblem(trigger.schedule) ??
      (fields === 6 ? "use 5 fields: function schedules run at most once a minute" : undefined);
    if (problem) errors.push({ param: `${param}.schedule`, code: "invalid_schedule", message: problem });
    if (trigger.timezone !== undefined && !isTimeZone(trigger.timezone)) {
      const message = `unknown time zone '${trigger.timezone}' (an IANA name such as Europe/Berlin)`;
      errors.push({ param: `${param}.timezone`, code: "invalid_timezone", message });
    }
  }
  if (errors.length > 0) {
    throw new AppError("validation_failed", `${errors[0]!.param}: ${errors[0]!.message}`, { errors });
  }
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

interface CronEntry {
  schedule: string;
  timezone: string;
}

/** Points the function's fan-out columns at `triggers` (those of the deployment it now serves). */
export async function subscribe(
  tx: Queryable,
  orgId: string,
  functionId: string,
  triggers: readonly Trigger[],
): Promise<void> {
  const events = [...new Set(triggers.flatMap((t) => (t.type === "event" ? t.events : [])))];
  const crons: CronEntry[] = triggers.flatMap((t) =>
    t.type === "cron" ? [{ schedule: t.schedule.trim(), timezone: t.timezone ?? "UTC" }] : [],
  );
  await tx.query(
    "UPDATE functions SET event_types = $3::text[], crons = $4::jsonb WHERE org_id = $1 AND id = $2",
    [orgId, functionId, events.length > 0 ? events : null, crons.length > 0 ? crons : null],
  );
}

const MINUTE_MS = 60_000;
/** Parsed schedules a matcher keeps between ticks (past it, it starts over). */
const MAX_MATCHERS = 1_000;

/**
 * Reads cron schedules as node-cron does, each parsed once and kept between ticks. node-cron
 * registers every task it makes, so the matcher's owner disposes it (`functionJobs`' job,
 * disposed with the scheduler).
 *
 * @example
 *   const cron = createCronMatcher();
 *   cron.matches("0 8 * * mon-fri", "Europe/Berlin", minute);
 *   await cron.dispose();
 */
export interface CronMatcher extends Disposable {
  /** Whether `schedule` (in `timezone`) falls due in the minute starting at `minute`. */
  matches(schedule: string, timezone: string, minute: Date): boolean;
}

export function createCronMatcher(): CronMatcher {
  const tasks = new Map<string, ReturnType<typeof cron.createTask>>();
  const clear = () => {
    for (const task of tasks.values()) void task.destroy();
    tasks.clear();
  };
  return disposable({
    matches(schedule, timezone, minute) {
      const key = `${timezone}\u0000${schedule}`;
      let task = tasks.get(key);
      if (!task) {
        if (tasks.size >= MAX_MATCHERS) clear();
        // A task that is never started: node-cron's own matcher, with its time-zone handling.
        task = cron.createTask(schedule, () => undefined, { timezone });
        tasks.set(key, task);
      }
      return task.match(minute);
    },
    dispose: async () => clear(),
  });
}

/** What the scheduler missed: cron instants after `since` and within `windowMs` of now. */
export interface CronCatchUp {
  /** The last minute whose runs were queued (the job's previous finished tick); null: none known. */
  since: Date | null;
  windowMs: number;
}

/**
 * Queues a run for every cron schedule due in the minute of `now`; returns how many.
 * The scheduler runs this once per minute on one node; the unique (function, schedule,
 * minute) makes a repeat harmless anyway.
 *
 * With `catchUp`, a schedule not due now that fell due in the minutes the scheduler missed
 * (after `since`, within the window, and not before the function last changed) gets one run,
 * for the latest such instant: as a Kubernetes CronJob or a persistent systemd timer does, a
 * daily job runs once after an outage, not once per missed day, and not never.
 */
export async function queueCronRuns(
  db: Queryable,
  cron: CronMatcher,
  now: Date,
  catchUp?: CronCatchUp,
): Promise<number> {
  const minute = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS;
  const missedFrom = catchUp?.since
    ? Math.max(catchUp.since.getTime() + MINUTE_MS, minute - catchUp.windowMs)
    : Number.POSITIVE_INFINITY;
  const functions = await db.query<{
    id: string;
    org_id: string;
    crons: CronEntry[];
    updated_at: Date | string;
  }>("SELECT id, org_id, crons, updated_at FROM functions WHERE crons IS NOT NULL");
  const due = new Map<number, Array<{ orgId: string; functionId: string; schedule: string }>>();
  const searching = missedFrom < minute;
  for (const [index, fn] of functions.entries()) {
    // A search back through a long gap costs ~15 ms per schedule and day: let other work through.
    if (searching && index > 0 && index % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
    const from = Math.max(missedFrom, new Date(fn.updated_at).getTime());
    for (const entry of fn.crons) {
      const at = safeMatch(cron, entry, minute) ? minute : lastMissed(cron, entry, from, minute);
      if (at === undefined) continue;
      const list = due.get(at) ?? [];
      due.set(at, list);
      list.push({ orgId: fn.org_id, functionId: fn.id, schedule: entry.schedule });
    }
  }
  let queued = 0;
  for (const [at, list] of due) queued += (await insertCronRuns(db, new Date(at), list)).length;
  return queued;
}

/** The latest minute in [from, before) at which `entry` fell due, or undefined. */
function lastMissed(cron: CronMatcher, entry: CronEntry, from: number, before: number): number | undefined {
  for (let at = before - MINUTE_MS; at >= from; at -= MINUTE_MS) if (safeMatch(cron, entry, at)) return at;
  return undefined;
}

/**
 * Queues a cron run for each of `due` at `scheduledFor` (its `scheduled_time`) and wakes the
 * workers; one already queued for the same function, schedule and instant is left as it is.
 * Returns the rows made.
 */
export async function insertCronRuns(
  db: Queryable,
  scheduledFor: Date,
  due: Array<{ orgId: string; functionId: string; schedule: string }>,
): Promise<RunRow[]> {
  if (due.length === 0) return [];
  const queued = await db.query<RunRow>(
    `INSERT INTO function_runs (id, org_id, function_id, trigger, schedule, scheduled_for, max_attempts,
       next_attempt_at, created_at, updated_at)
     SELECT 'frun_' || replace(gen_random_uuid()::text, '-', ''), org_id, function_id, 'cron', schedule,
       $1::timestamptz, $2, $1::timestamptz, $1::timestamptz, $1::timestamptz
     FROM unnest($3::text[], $4::text[], $5::text[]) AS due (org_id, function_id, schedule)
     ON CONFLICT DO NOTHING
     RETURNING *`,
    [
      scheduledFor.toISOString(),
      CRON_RUN_ATTEMPTS,
      due.map((d) => d.orgId),
      due.map((d) => d.functionId),
      due.map((d) => d.schedule),
    ],
  );
  if (queued.length > 0) await notifyRunWorkers(db);
  return queued;
}

/** A schedule checked at deploy never throws here; one that does (a node-cron upgrade) is skipped, not fatal. */
function safeMatch(cron: CronMatcher, entry: CronEntry, minute: number): boolean {
  try {
    return cron.matches(entry.schedule, entry.timezone, new Date(minute));
  } catch {
    return false;
  }
}
