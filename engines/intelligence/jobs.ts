import type { Config } from "../../core/index.ts";
import type { ScheduledJob } from "../scheduler.ts";
import { purgeSnapshots, refreshAllSnapshots } from "./snapshots.ts";

const DAY_MS = 86_400_000;

/** The intelligence engine's jobs: refresh every snapshot on the operator's schedule, bound the history. */
export function intelligenceJobs(
  config: Pick<Config, "snapshotSchedule" | "snapshotRetentionDays">,
): ScheduledJob[] {
  return [
    {
      name: "refresh-intelligence-snapshots",
      schedule: config.snapshotSchedule,
      async run({ store, now, log }) {
        const { refreshed, failed } = await refreshAllSnapshots(store, now, log);
        log.info("intelligence snapshots refreshed", { refreshed, failed });
        if (failed > 0) throw new Error(`${failed} of ${refreshed + failed} snapshots failed`);
      },
    },
    {
      name: "purge-intelligence-snapshots",
      schedule: "53 * * * *",
      async run({ store, now, log }) {
        const purged = await purgeSnapshots(
          store,
          new Date(now.getTime() - config.snapshotRetentionDays * DAY_MS),
        );
        if (purged > 0) log.info("purged intelligence snapshots", { purged });
      },
    },
  ];
}
