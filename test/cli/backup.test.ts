import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BACKUP_FILE,
  createBackupSeal,
  createPgliteStore,
  pruneBackups,
  verifyBackup,
} from "../../store/index.ts";
import { runCli, startServerProcess, type ServerProcess } from "../helpers/process.ts";

/**
 * `tessera backup`, `restore` and `migrate --dry-run` as an operator runs them, on the embedded
 * store: through the running server, into a new data dir, and a node that refuses a newer schema.
 */
describe("backup and restore from the command line", { timeout: 180_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "tessera-cli-backup-"));
  const dataDir = join(root, "data");
  const archive = join(root, "nightly.ndjson.gz");
  let server: ServerProcess;
  let key: string;

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
    });

  beforeAll(async () => {
    server = await startServerProcess({ TESSERA_DATA_DIR: dataDir });
    key = /sk_live_[0-9A-Za-z]+/.exec(server.output())?.[0] ?? "";
  }, 60_000);
  afterAll(async () => {
    await server?.stop("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  it("backs up through the running server while it takes writes", async () => {
    let writing = true;
    let created = 0;
    const writer = (async () => {
      while (writing) {
        const res = await api("/v1/contacts", {
          method: "POST",
          body: JSON.stringify({ name: `W ${created}` }),
        });
        expect(res.status).toBe(201);
        created += 1;
      }
    })();
    while (created < 5) await new Promise((resolve) => setTimeout(resolve, 20));
    const run = await runCli(["backup", "--out", archive], { TESSERA_DATA_DIR: dataDir });
    writing = false;
    await writer;
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `^backed up \\d+ rows of \\d+ tables \\(schema \\d+, pglite, \\S+\\) to ${archive} \\(\\d+\\.\\d kB\\)\\n$`,
      ),
    );
    const secret = readFileSync(join(dataDir, "secret"), "utf8").trim();
    const manifest = await verifyBackup(archive, createBackupSeal(secret));
    const contacts = manifest.tables.find((table) => table.name === "contacts")!;
    expect(contacts.rows).toBeGreaterThanOrEqual(5);
    expect(contacts.rows).toBeLessThanOrEqual(created);
    // Only the data dir's operator token opens the backup endpoint.
    const anonymous = await fetch(`${server.url}/admin/v1/backups`, { method: "POST" });
    expect(anonymous.status).toBe(401);
    const withKey = await api("/admin/v1/backups", { method: "POST" });
    expect(withKey.status).toBe(401);
  });

  it("refuses to restore under a running server", async () => {
    const run = await runCli(["restore", archive], { TESSERA_DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: a server \(pid \d+\) is using .*: stop it first/);
  });

  it("restores into a new data dir under the archive's secret, which serves the same data and keys", async () => {
    const secret = readFileSync(join(dataDir, "secret"), "utf8").trim();
    const target = join(root, "restored");
    const refused = await runCli(["restore", archive], { TESSERA_DATA_DIR: target });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/set TESSERA_SECRET to the secret of the server that made the backup/);
    expect(existsSync(join(target, "pg"))).toBe(false);

    const run = await runCli(["restore", archive], { TESSERA_DATA_DIR: target, TESSERA_SECRET: secret });
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/^restored \d+ rows of \d+ tables/);
    expect(readFileSync(join(target, "secret"), "utf8").trim()).toBe(secret);
    const again = await runCli(["restore", archive], { TESSERA_DATA_DIR: target, TESSERA_SECRET: secret });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/the store is not empty/);

    const restored = await startServerProcess({ TESSERA_DATA_DIR: target });
    try {
      // No new organization, key or setup link: the store is the old one.
      expect(restored.output()).not.toContain("created organization");
      const total = async (base: string) => {
        const res = await fetch(`${base}/v1/contacts?per_page=1`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { meta: { total: number } }).meta.total;
      };
      const manifest = await verifyBackup(archive, createBackupSeal(secret));
      const rows = manifest.tables.find((table) => table.name === "contacts")!.rows;
      expect(await total(restored.url)).toBe(rows);
      expect(await total(server.url)).toBeGreaterThanOrEqual(rows);
    } finally {
      await restored.stop();
    }
  });

  it("lists pending migrations without applying them, and a node refuses a schema newer than it knows", async () => {
    const fresh = join(root, "fresh");
    const dry = await runCli(["migrate", "--dry-run"], { TESSERA_DATA_DIR: fresh });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^\d+ migrations would be applied, in order:\n {2}0001_platform\n/);
    // Nothing was applied: `migrate` applies them all, and then nothing is left.
    expect((await runCli(["migrate"], { TESSERA_DATA_DIR: fresh })).stdout).toContain(
      `"applied": [\n    1,\n`,
    );
    expect((await runCli(["migrate", "--dry-run"], { TESSERA_DATA_DIR: fresh })).stdout).toMatch(
      /^nothing to apply/,
    );

    const store = await createPgliteStore({ dataDir: join(fresh, "pg") });
    await store.query("INSERT INTO tessera_migrations (version, name) VALUES (9999, 'from_the_future')");
    await store.dispose();
    const serve = await runCli(["serve"], { TESSERA_DATA_DIR: fresh, PORT: "0" });
    expect(serve.code).toBe(1);
    expect(serve.stdout).not.toContain("listening");
    expect(serve.stderr).toMatch(
      /^error: the database's schema is at migration 9999_from_the_future, newer than this Tessera knows \(up to \d{4}_\w+\): start the Tessera version that migrated it, or a newer one$/m,
    );
    const keys = await runCli(["orgs", "list"], { TESSERA_DATA_DIR: fresh });
    expect(keys.code).toBe(1);
    expect(keys.stderr).toMatch(/newer than this Tessera knows/);
  });

  it("never leaves half an archive under a backup's name when killed mid-write", async () => {
    const folder = join(root, "scheduled");
    const secret = "loop-secret-0123456789abcdef0123456789";
    const fixture = fileURLToPath(new URL("../fixtures/backup-loop.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", fixture, folder], {
      env: { ...process.env, BACKUP_SECRET: secret },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    // Two whole backups tell how long one takes; the third is killed halfway through.
    const killed = await new Promise<boolean>((resolve) => {
      let output = "";
      let started = 0;
      let took = 0;
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const lines = output.split("\n").filter(Boolean);
        const wrote = lines.filter((line) => line === "wrote").length;
        const writing = lines.filter((line) => line === "writing").length;
        if (writing === 2 && wrote === 1 && !started) started = Date.now();
        if (wrote === 2 && !took) took = Date.now() - started;
        if (writing === 3 && took) {
          setTimeout(() => resolve(child.kill("SIGKILL")), Math.max(1, took / 2));
          child.stdout.removeAllListeners("data");
        }
      });
    });
    expect(killed).toBe(true);
    await exited;
    const seal = createBackupSeal(secret);
    const archives = readdirSync(folder).filter((name) => BACKUP_FILE.test(name));
    expect(archives.length).toBeGreaterThanOrEqual(1);
    expect(archives.length).toBeLessThanOrEqual(3);
    for (const name of archives) await verifyBackup(join(folder, name), seal);
    // What the killed writer left are temp files, swept once they are stale.
    await pruneBackups(folder, 3, new Date(Date.now() + 11 * 60_000));
    expect(readdirSync(folder).sort()).toEqual(archives.sort());
  });
});
