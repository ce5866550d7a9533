import cron from "node-cron";
import { disposable, randomBase62, type Clock, type Disposable, type Logger } from "../core/index.ts";
import type { Store } from "../store/index.ts";

/** A housekeeping job: a cron expression and what to run on each tick. */
export interface ScheduledJob {
  name: string;
  /** node-cron expression, e.g. `0 * * * *` for hourly. */
  schedule: string;
  run(ctx: ScheduledJobContext): Promise<void>;
  /** Releases what the job keeps between ticks; the scheduler calls it when disposed. */
  dispose?(): void | Promise<void>;
}

export interface ScheduledJobContext {
  store: Store;
  now: Date;
  log: Logger;
  /**
   * The minute of this job's latest earlier tick that finished without an error, or null
   * (none in the kept history). Minutes between it and `now` were missed: no node ran them.
   * Absent when a job is run by hand.
   */
  previousTick?: () => Promise<Date | null>;
}

export interface SchedulerOptions {
  store: Store;
  clock: Clock;
  log: Logger;
  jobs: readonly ScheduledJob[];
}

export interface Scheduler extends Disposable {
  /** Runs one tick of `name` now, as cron would (tests, and `tessera` operators). */
  tick(name: string, at?: Date): Promise<"ran" | "skipped">;
}

/**
 * Runs housekeeping on cron schedules, on exactly one node per tick whatever the
 * number of nodes: the node that inserts the (job, tick) row runs it, the others
 * find the row and skip. Ticks are truncated to the minute, the cron resolution.
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, clock, log } = options;
  const node = `node_${randomBase62(8)}`;
  const jobs = new Map(options.jobs.map((job) => [job.name, job]));
  let running = 0;
  let idle: (() => void) | undefined;

  const tick = async (name: string, at: Date = clock.now()): Promise<"ran" | "skipped"> => {
    const job = jobs.get(name);
    if (!job) throw new Error(`no such job: ${name}`);
    const minute = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
    const claimed = await store.query(
      `INSERT INTO scheduled_runs (job, tick, node) VALUES ($1, $2::timestamptz, $3)
       ON CONFLICT (job, tick) DO NOTHING RETURNING 1`,
      [name, minute.toISOString(), node],
    );
    if (claimed.length === 0) return "skipped";
    running++;
    let error: string | null = null;
    const previousTick = async (): Promise<Date | null> => {
      const [row] = await store.query<{ tick: Date | string | null }>(
        `SELECT max(tick) AS tick FROM scheduled_runs
         WHERE job = $1 AND tick < $2::timestamptz AND finished_at IS NOT NULL AND error IS NULL`,
        [name, minute.toISOString()],
      );
      return row?.tick ? new Date(row.tick) : null;
    };
    try {
      await job.run({ store, now: at, log: log.child({ job: name }), previousTick });
    } catch (cause) {
      error = (cause as Error).message;
      log.error("scheduled job failed", { job: name, error: cause });
    } finally {
      running--;
      if (running === 0) idle?.();
    }
    await store.query(
      "UPDATE scheduled_runs SET finished_at = now(), error = $3 WHERE job = $1 AND tick = $2::timestamptz",
      [name, minute.toISOString(), error],
    );
    return "ran";
  };

  const tasks = options.jobs.map((job) =>
    cron.schedule(
      job.schedule,
      async (context) => {
        await tick(job.name, context.date).catch((error: unknown) =>
          log.error("scheduler tick failed", { job: job.name, error }),
        );
      },
      { name: job.name, noOverlap: true },
    ),
  );

  return disposable({
    tick,
    async dispose() {
      for (const task of tasks) await task.destroy();
      if (running > 0) await new Promise<void>((resolve) => (idle = resolve));
      for (const job of options.jobs) await job.dispose?.();
    },
  });
}
