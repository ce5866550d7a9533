import type { Config } from "../core/index.ts";
import { purgeEvents } from "./events/outbox.ts";
import { markOverdueInvoices } from "./finance/overdue.ts";
import { purgeExpiredOAuthRecords } from "./oauth/records.ts";
import { purgeIdempotencyKeys } from "./tenancy/idempotency.ts";
import type { ScheduledJob } from "./scheduler.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The platform's own housekeeping; later engines add their jobs beside these. */
export function housekeepingJobs(config: Config): ScheduledJob[] {
  return [
    {
      name: "mark-overdue-invoices",
      schedule: "*/5 * * * *",
      async run({ store, now, log }) {
        const marked = await markOverdueInvoices(store, now);
        if (marked > 0) log.info("invoices marked overdue", { marked });
      },
    },
    {
      name: "purge-events",
      schedule: "29 * * * *",
      async run({ store, now, log }) {
        const purged = await purgeEvents(store, new Date(now.getTime() - config.eventRetentionDays * DAY_MS));
        if (purged > 0) log.info("purged events", { purged });
      },
    },
    {
      name: "purge-idempotency-keys",
      schedule: "17 * * * *",
      async run({ store, now, log }) {
        const purged = await purgeIdempotencyKeys(
          store,
          new Date(now.getTime() - config.idempotencyTtlHours * HOUR_MS),
        );
        if (purged > 0) log.info("purged idempotency keys", { purged });
      },
    },
    {
      // Expired codes, tokens and interactions of the authorization server pile up otherwise.
      name: "purge-oauth-records",
      schedule: "37 * * * *",
      async run({ store, now, log }) {
        const purged = await purgeExpiredOAuthRecords(store, now);
        if (purged > 0) log.info("purged expired oauth records", { purged });
      },
    },
    {
      name: "purge-scheduled-runs",
      schedule: "43 3 * * *",
      async run({ store, now }) {
        await store.query("DELETE FROM scheduled_runs WHERE tick < $1::timestamptz", [
          new Date(now.getTime() - 7 * 24 * HOUR_MS).toISOString(),
        ]);
      },
    },
  ];
}
