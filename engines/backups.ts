import type { BackupConfig } from "../core/index.ts";
import { writeBackupInto, type BackupSeal } from "../store/index.ts";
import type { ScheduledJob } from "./scheduler.ts";

/**
 * `TESSERA_BACKUP_CRON`: the worker writes an archive into the backup dir on that schedule (one
 * node per tick, as every scheduled job), then keeps the newest `keep`. Each archive is renamed
 * into place only when whole (store/backup.ts), so a crash leaves no half archive to restore.
 */
export function backupJobs(config: BackupConfig, seal: BackupSeal): ScheduledJob[] {
  const { schedule, dir, keep } = config;
  if (!schedule) return [];
  return [
    {
      name: "backup",
      schedule,
      async run({ store, now, log }) {
        const { path, manifest, pruned } = await writeBackupInto(store, { dir, keep, seal, now });
        const rows = manifest.tables.reduce((sum, table) => sum + table.rows, 0);
        log.info("backup written", { path, rows, schema: manifest.schema_version, pruned: pruned.length });
      },
    },
  ];
}
