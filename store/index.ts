import { join } from "node:path";
import type { Config } from "../core/index.ts";
import { createPgliteStore } from "./pglite.ts";
import { createPostgresStore } from "./postgres.ts";
import type { Queryable, Store } from "./port.ts";

export type { Queryable, Row, Store } from "./port.ts";
export { createPgliteStore } from "./pglite.ts";
export { createPostgresStore } from "./postgres.ts";
export {
  appliedMigrations,
  assertSchemaKnown,
  listMigrations,
  migrate,
  pendingMigrations,
  SchemaTooNew,
  type Migration,
} from "./migrate.ts";
export {
  ArchiveError,
  BACKUP_FILE,
  backupFileName,
  restoreBackup,
  RestoreRefused,
  createBackupSeal,
  pruneBackups,
  verifyBackup,
  writeBackup,
  writeBackupInto,
  type BackupManifest,
  type BackupSeal,
  type BackupTable,
  type RestoreOptions,
  type RestoreSummary,
} from "./backup.ts";
export {
  API_KEY_CHANGED,
  createInvalidations,
  FUNCTION_CHANGED,
  type InvalidationChannel,
  type InvalidationHandler,
  type Invalidations,
} from "./invalidations.ts";
export {
  claimDue,
  nextClaimable,
  queueStats,
  QUEUE_COUNT_CAP,
  type Claim,
  type ClaimRules,
  type QueueClaim,
  type QueueStats,
  type QueueTable,
} from "./queue.ts";

/** The store the configuration asks for: PostgreSQL when DATABASE_URL is set, else PGlite. */
export function openStore(config: Config): Promise<Store> {
  if (config.databaseUrl) {
    return Promise.resolve(createPostgresStore({ url: config.databaseUrl, poolSize: config.dbPoolSize }));
  }
  return createPgliteStore({ dataDir: join(config.dataDir, "pg") });
}
export { openDataDir, type DataDir, type RunningServer, type ServerLauncher } from "./data-dir.ts";

/** Runs `fn` in a new transaction when given a store, or directly when already inside one. */
export function inTransaction<T>(db: Queryable | Store, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  return "transaction" in db ? db.transaction(fn) : fn(db);
}
