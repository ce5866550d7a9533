import type { Config } from "../core/index.ts";
import type { ScheduledJob } from "../engines/index.ts";
import { disableEndpoint, longFailingEndpoints, purgeDeliveries } from "./delivery-queries.ts";
import { announceDisabled } from "./deliver.ts";

const DAY_MS = 86_400_000;

/**
 * The webhooks' cron jobs, run by the scheduler role beside the platform's. Stuck
 * leases need no job: the claim query itself takes a delivery whose lease passed.
 */
export function webhookJobs(
  config: Pick<Config, "eventRetentionDays" | "webhookDisableAfterDays">,
): ScheduledJob[] {
  return [
    {
      // Deliveries live as long as their events: past that, there is nothing left to send.
      name: "purge-webhook-deliveries",
      schedule: "31 * * * *",
      async run({ store, now, log }) {
        const purged = await purgeDeliveries(
          store,
          new Date(now.getTime() - config.eventRetentionDays * DAY_MS),
        );
        if (purged > 0) log.info("purged webhook deliveries", { purged });
      },
    },
    {
      // Workers disable an endpoint when an attempt fails past the limit; this catches the
      // endpoints whose failing run passed the limit with no attempt due since.
      name: "disable-failing-webhook-endpoints",
      schedule: "*/10 * * * *",
      async run({ store, now, log }) {
        const before = new Date(now.getTime() - config.webhookDisableAfterDays * DAY_MS);
        for (const id of await longFailingEndpoints(store, before)) {
          await store.transaction(async (tx) => {
            const row = await disableEndpoint(tx, id, "failing", now, before);
            if (row) await announceDisabled(tx, log, row, now);
          });
        }
      },
    },
  ];
}
