import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig, silentLogger } from "../../core/index.ts";
import { backupJobs } from "../../engines/index.ts";
import { createBackupSeal, migrate, verifyBackup } from "../../store/index.ts";
import { openMigratedPglite } from "../helpers/pglite-image.ts";

const SEAL = createBackupSeal("backup-job-secret-0123456789abcdef0123456789");
const root = mkdtempSync(join(tmpdir(), "tessera-backup-job-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** TESSERA_BACKUP_CRON: the worker's scheduled backup, as the scheduler runs it. */
describe("scheduled backups", () => {
  it("are off by default, and read their schedule, folder and count from the environment", () => {
    const off = loadConfig({ TESSERA_DATA_DIR: "/srv/tessera/" });
    expect(off.backups).toEqual({ schedule: undefined, dir: "/srv/tessera/backups", keep: 7 });
    expect(backupJobs(off.backups, SEAL)).toEqual([]);
    const on = loadConfig({
      TESSERA_BACKUP_CRON: "0 3 * * *",
      TESSERA_BACKUP_DIR: "/backups",
      TESSERA_BACKUP_KEEP: "14",
    });
    expect(on.backups).toEqual({ schedule: "0 3 * * *", dir: "/backups", keep: 14 });
    expect(backupJobs(on.backups, SEAL).map((job) => [job.name, job.schedule])).toEqual([
      ["backup", "0 3 * * *"],
    ]);
    expect(() => loadConfig({ TESSERA_BACKUP_CRON: "at three" })).toThrow(ConfigError);
    expect(() => loadConfig({ TESSERA_BACKUP_CRON: "at three" })).toThrow(/TESSERA_BACKUP_CRON/);
    expect(() => loadConfig({ TESSERA_BACKUP_KEEP: "0" })).toThrow(/TESSERA_BACKUP_KEEP/);
  });

  it("write a whole archive on each tick into the folder, keeping the newest N", async () => {
    const dir = join(root, "nightly");
    const [job] = backupJobs({ schedule: "0 3 * * *", dir, keep: 2 }, SEAL);
    const store = await openMigratedPglite();
    await migrate(store);
    for (const day of ["2026-11-25", "2026-11-26", "2026-11-27"]) {
      await job!.run({ store, now: new Date(`${day}T03:00:00Z`), log: silentLogger });
    }
    await store.dispose();
    const names = readdirSync(dir).sort();
    expect(names).toEqual([
      "tessera-backup-20261126T030000Z.ndjson.gz",
      "tessera-backup-20261127T030000Z.ndjson.gz",
    ]);
    for (const name of names)
      expect((await verifyBackup(join(dir, name), SEAL)).created_at).toMatch(/^2026-11-2[67]T03/);
  });
});
