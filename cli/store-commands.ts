import { createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { randomBase62, type Config } from "../core/index.ts";
import {
  assertSchemaKnown,
  backupFileName,
  createBackupSeal,
  listMigrations,
  openDataDir,
  openStore,
  pendingMigrations,
  restoreBackup,
  verifyBackup,
  writeBackup,
  type BackupManifest,
  type Store,
} from "../store/index.ts";

/**
 * The commands on the store as a whole: `backup`, `restore` and `migrate --dry-run`. They need
 * the store and the secret, not the services: a backup or a restore opens the store, does its one
 * thing and closes it. While `serve` holds the embedded store (PGlite admits one process) a backup
 * goes through the server's `/admin/v1/backups`, and a restore is refused.
 */

/** `tessera backup [--out FILE]`: prints where the archive is and what it holds. */
export async function backupCommand(config: Config, out: string | undefined): Promise<string> {
  const now = new Date();
  // By default where the schedule writes them (TESSERA_BACKUP_DIR, else $TESSERA_DATA_DIR/backups).
  const dir = config.backups?.dir ?? join(config.dataDir, "backups");
  if (!out) await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = resolve(out ?? join(dir, backupFileName(now)));
  if (!config.databaseUrl) {
    const dataDir = openDataDir(config.dataDir);
    const running = dataDir.runningServer();
    if (running) {
      await downloadBackup(running.url, dataDir.adminToken(), path);
      const manifest = await verifyBackup(path, createBackupSeal(config.secret ?? dataDir.secret()));
      return await describe("backed up", manifest, path);
    }
  }
  const manifest = await withStore(config, (store) =>
    writeBackup(store, { path, seal: createBackupSeal(secretOf(config)), now }),
  );
  return await describe("backed up", manifest, path);
}

/** `tessera restore FILE [--force]`: into an empty store (or, forced, one it empties). */
export async function restoreCommand(config: Config, file: string, force: boolean): Promise<string> {
  const path = resolve(file);
  let secret = config.secret;
  if (!config.databaseUrl) {
    const dataDir = openDataDir(config.dataDir);
    const running = dataDir.runningServer();
    if (running) {
      throw new Error(
        `a server (pid ${running.pid}) is using ${config.dataDir}: stop it first, a restore replaces the whole store`,
      );
    }
    secret ??= dataDir.existingSecret();
  }
  if (!secret) {
    throw new Error(
      `set TESSERA_SECRET to the secret of the server that made the backup (its $TESSERA_DATA_DIR/secret): ${config.dataDir} keeps it from then on`,
    );
  }
  const seal = createBackupSeal(secret);
  // Checked before anything is written: a bad archive leaves not even an empty data dir behind.
  await verifyBackup(path, seal);
  // The archive's sealed values open only under its secret, so a new data dir keeps that one.
  if (!config.databaseUrl && config.secret) openDataDir(config.dataDir).adoptSecret(config.secret);
  const summary = await withStore(config, (store) => restoreBackup(store, { path, seal, force }), {
    checkSchema: false,
  });
  const newer = summary.migrated.length > 0 ? `; then applied migrations ${summary.migrated.join(", ")}` : "";
  return `${await describe("restored", summary.manifest, path)}${newer}`;
}

/** `tessera migrate --dry-run`: the migrations `migrate` (or the next start) would apply. */
export async function pendingCommand(config: Config): Promise<string> {
  if (!config.databaseUrl && openDataDir(config.dataDir).runningServer()) {
    return "nothing to apply: the running server applied every migration it ships when it started";
  }
  const pending = await withStore(config, (store) => pendingMigrations(store));
  if (pending.length === 0)
    return "nothing to apply: the store is at the newest migration this Tessera ships";
  const names = new Map(listMigrations().map((m) => [m.version, m.name]));
  return [
    `${pending.length} migration${pending.length === 1 ? "" : "s"} would be applied, in order:`,
    ...pending.map((version) => `  ${String(version).padStart(4, "0")}_${names.get(version)}`),
  ].join("\n");
}

function secretOf(config: Config): string {
  return config.secret ?? openDataDir(config.dataDir).secret();
}

async function withStore<T>(
  config: Config,
  fn: (store: Store) => Promise<T>,
  options: { checkSchema: boolean } = { checkSchema: true },
): Promise<T> {
  const store = await openStore(config);
  try {
    if (options.checkSchema) await assertSchemaKnown(store);
    return await fn(store);
  } finally {
    await store.dispose();
  }
}

/** Streams the running server's backup into `path`, through a temp file renamed when whole. */
async function downloadBackup(baseUrl: string, token: string, path: string): Promise<void> {
  const response = await fetch(`${baseUrl}/admin/v1/backups`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  if (!response.ok || !response.body) {
    const problem = (await response.json().catch(() => ({}))) as { detail?: string };
    throw new Error(problem.detail ?? `the server answered ${response.status}`);
  }
  const temp = join(dirname(path), `.${basename(path)}.tmp-${randomBase62(8)}`);
  try {
    await pipeline(Readable.fromWeb(response.body), createWriteStream(temp, { mode: 0o600 }));
    await rename(temp, path);
  } finally {
    await rm(temp, { force: true });
  }
}

async function describe(verb: string, manifest: BackupManifest, path: string): Promise<string> {
  const rows = manifest.tables.reduce((sum, table) => sum + table.rows, 0);
  const size = (await stat(path)).size;
  return `${verb} ${rows} rows of ${manifest.tables.length} tables (schema ${manifest.schema_version}, ${manifest.store}, ${manifest.created_at}) ${verb === "restored" ? "from" : "to"} ${path} (${formatBytes(size)})`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
