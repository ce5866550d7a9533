import type { Config } from "../core/index.ts";
import type { ScheduledJob } from "../engines/index.ts";
import { purgeFunctionLogs } from "./log-queries.ts";
import { purgeFunctionRuns } from "./run-queries.ts";
import { createCronMatcher, queueCronRuns } from "./triggers.ts";

const DAY_MS = 24 * 3_600_000;

/**
 * Functions' scheduled work: cron triggers queue their runs each minute (and, after minutes
 * no node ran, each schedule's latest missed instant within TESSERA_FUNCTION_CRON_CATCHUP_HOURS);
 * log lines and finished runs are kept TESSERA_FUNCTION_LOG_RETENTION_DAYS.
 */
export function functionJobs(config: Pick<Config, "functions">): ScheduledJob[] {
  const cron = createCronMatcher();
  return [
    {
      name: "purge-function-logs",
      schedule: "37 * * * *",
      async run({ store, now, log }) {
        const before = new Date(now.getTime() - config.functions.logRetentionDays * DAY_MS);
        const purged = await purgeFunctionLogs(store, before);
        if (purged > 0) log.info("purged function logs", { purged });
        const runs = await purgeFunctionRuns(store, before);
        if (runs > 0) log.info("purged function runs", { purged: runs });
      },
    },
    {
      name: "function-crons",
      schedule: "* * * * *",
      async run({ store, now, log, previousTick }) {
        const since = previousTick ? await previousTick() : null;
        const windowMs = config.functions.cronCatchUpHours * 3_600_000;
        const missed = since
          ? (Math.floor(now.getTime() / 60_000) * 60_000 - since.getTime()) / 60_000 - 1
          : 0;
        if (missed > 0 && windowMs > 0) {
          log.info("the scheduler missed minutes: running cron schedules that fell due meanwhile", {
            since,
            missed_minutes: missed,
          });
        }
        // Run by hand (no previousTick), `since` is null: only what is due now.
        const queued = await queueCronRuns(store, cron, now, { since, windowMs });
        if (queued > 0) log.debug("queued cron runs", { queued });
      },
      dispose: () => cron.dispose(),
    },
  ];
}
