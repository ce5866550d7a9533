import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { systemClock } from "../../core/index.ts";
import { createOrganization, createResourceServices, seedDemo } from "../../engines/index.ts";
import {
  ArchiveError,
  assertSchemaKnown,
  createBackupSeal,
  createPostgresStore,
  listMigrations,
  migrate,
  pendingMigrations,
  pruneBackups,
  restoreBackup,
  RestoreRefused,
  SchemaTooNew,
  verifyBackup,
  writeBackup,
  type BackupManifest,
  type Store,
} from "../../store/index.ts";
import { openEmptyPglite, openMigratedPglite } from "../helpers/pglite-image.ts";
import { emptyDatabase } from "../helpers/stores.ts";

const SEAL = createBackupSeal("backup-test-secret-0123456789abcdef0123456789");
const dir = mkdtempSync(join(tmpdir(), "tessera-backup-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const archivePath = () => join(dir, `archive-${++files}.ndjson.gz`);

/** The kinds of empty store a restore goes into: PGlite, and PostgreSQL when TEST_DATABASE_URL is set. */
const targets: Array<{ name: string; open(): Promise<Store> }> = [
  { name: "pglite", open: () => openEmptyPglite() },
];
const url = process.env.TEST_DATABASE_URL;
if (url) {
  targets.push({
    name: "postgres",
    async open() {
      const database = await emptyDatabase(url, "test_backup");
      const store = createPostgresStore({ url: database.url, poolSize: 4 });
      return { ...store, dispose: async () => (await store.dispose(), await database.drop()) };
    },
  });
}

async function seeded(): Promise<Store> {
  const store = await openMigratedPglite();
  await migrate(store);
  const org = await createOrganization(store, { name: "acme", plan: "pro" });
  await seedDemo(store, systemClock, org.id, 1);
  return store;
}

/** Migrating and seeding a store takes seconds on a busy machine: one archive of one serves most tests. */
let shared: Promise<{ path: string; manifest: BackupManifest }> | undefined;
function sharedArchive(): Promise<{ path: string; manifest: BackupManifest }> {
  shared ??= (async () => {
    const source = await seeded();
    const path = archivePath();
    const manifest = await writeBackup(source, { path, seal: SEAL });
    await source.dispose();
    return { path, manifest };
  })();
  return shared;
}

/** Every table's row count and checksum: two stores with the same rows have the same. */
const tablesOf = (manifest: BackupManifest) =>
  Object.fromEntries(manifest.tables.map((table) => [table.name, `${table.rows}:${table.sha256}`]));

async function tableNames(store: Store): Promise<string[]> {
  const rows = await store.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
  );
  return rows.map((row) => row.name);
}

/** Rewrites an archive's text through `edit` (lines in, lines out) as one gzip member. */
function rewrite(from: string, to: string, edit: (lines: string[]) => string[]): void {
  const lines = gunzipSync(readFileSync(from)).toString("utf8").split("\n");
  writeFileSync(to, gzipSync(edit(lines).join("\n")));
}

describe("backup and restore", { timeout: 180_000 }, () => {
  it("reads the store in one piece: every table, its rows, counts and checksums, sealed", async () => {
    const store = await seeded();
    const path = archivePath();
    const manifest = await writeBackup(store, { path, seal: SEAL });
    expect(manifest).toMatchObject({
      format: "tessera-backup",
      format_version: 1,
      store: "pglite",
      schema_version: listMigrations().at(-1)!.version,
      secret_fingerprint: SEAL.fingerprint,
    });
    expect(manifest.tables.map((t) => t.name).sort()).toEqual(
      (await tableNames(store)).filter((name) => name !== "tessera_migrations"),
    );
    // Parents before children: organizations first, so every row's foreign keys hold when inserted.
    expect(manifest.tables[0]!.name).toBe("organizations");
    const [invoices] = await store.query<{ n: number }>("SELECT count(*)::int AS n FROM invoices");
    expect(manifest.tables.find((t) => t.name === "invoices")!.rows).toBe(invoices!.n);
    // The manifest is the first line, readable with zcat | head -1; no secret is in it.
    const first = gunzipSync(readFileSync(path)).toString("utf8").split("\n")[0]!;
    expect(JSON.parse(first)).toEqual(manifest);
    expect(first).not.toContain("backup-test-secret");
    expect(await verifyBackup(path, SEAL)).toEqual(manifest);
    await store.dispose();
  });

  for (const target of targets) {
    it(`restores a PGlite backup into an empty ${target.name} store, row for row`, async () => {
      const { path, manifest: made } = await sharedArchive();
      const into = await target.open();
      const summary = await restoreBackup(into, { path, seal: SEAL });
      expect(summary.rows).toBe(made.tables.reduce((sum, t) => sum + t.rows, 0));
      expect(summary.migrated).toEqual([]);
      // Backed up again, the restored store holds the very same rows: every checksum matches.
      const again = await writeBackup(into, { path: archivePath(), seal: SEAL });
      expect(tablesOf(again)).toEqual(tablesOf(made));
      // Triggers were off for the load and are on again: nothing was derived twice, new rows count.
      const [counts] = await into.query<{ n: number }>(
        "SELECT coalesce(sum(n), 0)::int AS n FROM invoice_counts",
      );
      const [invoices] = await into.query<{ n: number }>("SELECT count(*)::int AS n FROM invoices");
      expect(counts!.n).toBe(invoices!.n);
      const [deliveries] = await into.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_deliveries",
      );
      expect(deliveries!.n).toBe(0);
      // Sequences continue after the restored rows.
      const org = await createOrganization(into, { name: "after", plan: "free" });
      await createResourceServices(into, systemClock).get("contacts")!.create(org.id, { name: "New" });
      const [seq] = await into.query<{ fresh: boolean }>(
        "SELECT min(seq) > (SELECT max(seq) FROM events WHERE org_id <> $1) AS fresh FROM events WHERE org_id = $1",
        [org.id],
      );
      expect(seq!.fresh).toBe(true);
      await into.dispose();
    });
  }

  it.runIf(url)("restores a PostgreSQL backup into PGlite: the move back", async () => {
    const source = await targets[1]!.open();
    await migrate(source);
    const org = await createOrganization(source, { name: "pg-acme", plan: "pro" });
    await seedDemo(source, systemClock, org.id, 1);
    const path = archivePath();
    const made = await writeBackup(source, { path, seal: SEAL });
    expect(made.store).toBe("postgres");
    const into = await openEmptyPglite();
    await restoreBackup(into, { path, seal: SEAL });
    expect(tablesOf(await writeBackup(into, { path: archivePath(), seal: SEAL }))).toEqual(tablesOf(made));
    await into.dispose();
    await source.dispose();
  });

  for (const target of targets) {
    it(`is one snapshot while writes go on (${target.name})`, async () => {
      const store = await target.open();
      await migrate(store);
      const org = await createOrganization(store, { name: "busy", plan: "pro" });
      const contacts = createResourceServices(store, systemClock).get("contacts")!;
      // Each contact and its contact.created event commit together: a snapshot sees both or neither.
      let writing = true;
      let written = 0;
      const writer = (async () => {
        while (writing) {
          await contacts.create(org.id, { name: `Contact ${written}` });
          written += 1;
          // PGlite answers within microtasks: without a turn of the loop the timers below would starve.
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      while (written < 20) await new Promise((resolve) => setTimeout(resolve, 10));
      const path = archivePath();
      const manifest = await writeBackup(store, { path, seal: SEAL });
      const during = written;
      while (written < during + 10) await new Promise((resolve) => setTimeout(resolve, 10));
      writing = false;
      await writer;
      const table = (name: string) => manifest.tables.find((t) => t.name === name)!;
      const lines = gunzipSync(readFileSync(path)).toString("utf8").split("\n");
      const created = lines.filter((line) => line.includes('"type":"contact.created"')).length;
      expect(table("contacts").rows).toBeGreaterThanOrEqual(20);
      expect(created).toBe(table("contacts").rows);
      expect(table("contacts").rows).toBeLessThan(written);
      await store.dispose();
    });
  }

  it("refuses a truncated, edited, resealed or foreign archive and writes nothing", async () => {
    const { path } = await sharedArchive();
    const bytes = readFileSync(path);

    const truncated = archivePath();
    writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length * 0.7)));
    const edited = archivePath();
    rewrite(path, edited, (lines) =>
      lines.map((line) => line.replace('"plan":"pro"', '"plan":"enterprise"')),
    );
    const cut = archivePath();
    rewrite(path, cut, (lines) => lines.slice(0, lines.length - 40));
    const resealed = archivePath();
    rewrite(path, resealed, (lines) => {
      const manifest = JSON.parse(lines[0]!) as BackupManifest;
      manifest.tables = manifest.tables.map((t) => (t.name === "organizations" ? { ...t, rows: 2 } : t));
      return [JSON.stringify(manifest), ...lines.slice(1)];
    });
    const notOne = archivePath();
    writeFileSync(notOne, gzipSync("hello\n"));

    const cases: Array<[string, string, RegExp]> = [
      [truncated, "truncated", /not a whole Tessera backup|truncated|damaged/],
      [edited, "edited", /damaged: table organizations/],
      [cut, "cut short", /damaged|truncated/],
      [resealed, "resealed", /changed after it was written/],
      [notOne, "not a backup", /not a Tessera backup/],
      [join(dir, "absent.ndjson.gz"), "absent", /no such file/],
    ];
    const into = await openEmptyPglite();
    for (const [file, what, message] of cases) {
      const error = await restoreBackup(into, { path: file, seal: SEAL }).catch((e: unknown) => e);
      expect(error, what).toBeInstanceOf(ArchiveError);
      expect((error as Error).message, what).toMatch(message);
      expect(await tableNames(into), what).toEqual([]);
    }
    const other = createBackupSeal("another-secret-0123456789abcdef0123456789");
    await expect(restoreBackup(into, { path, seal: other })).rejects.toThrow(
      new RegExp(
        `another TESSERA_SECRET \\(fingerprint ${SEAL.fingerprint}; this one's is ${other.fingerprint}\\)`,
      ),
    );
    expect(await tableNames(into)).toEqual([]);
    await into.dispose();
  });

  it("refuses a store that holds data unless forced, then replaces what it held", async () => {
    const { path, manifest: made } = await sharedArchive();
    const into = await openMigratedPglite();
    await migrate(into);
    const org = await createOrganization(into, { name: "default", plan: "free" });
    await expect(restoreBackup(into, { path, seal: SEAL })).rejects.toThrow(RestoreRefused);
    await expect(restoreBackup(into, { path, seal: SEAL })).rejects.toThrow(/not empty \(organizations/);
    const [kept] = await into.query<{ name: string }>("SELECT name FROM organizations");
    expect(kept!.name).toBe("default");
    await restoreBackup(into, { path, seal: SEAL, force: true });
    expect(await into.query("SELECT 1 FROM organizations WHERE id = $1", [org.id])).toEqual([]);
    expect(tablesOf(await writeBackup(into, { path: archivePath(), seal: SEAL }))).toEqual(tablesOf(made));
    await into.dispose();
  });

  it("applies the archive's migrations, its rows, then this build's newer migrations", async () => {
    const all = listMigrations();
    const older = all.slice(0, -3);
    // Today's engines write today's columns: the older schema gets its rows by hand.
    const source = await openEmptyPglite();
    await migrate(source, older);
    await source.query("INSERT INTO organizations (id, name, plan) VALUES ('org_older', 'older', 'free')");
    const path = archivePath();
    const made = await writeBackup(source, { path, seal: SEAL });
    expect(made.schema_version).toBe(older.at(-1)!.version);
    await source.dispose();
    const into = await openEmptyPglite();
    const summary = await restoreBackup(into, { path, seal: SEAL });
    expect(summary.migrated).toEqual(all.slice(-3).map((m) => m.version));
    expect(await pendingMigrations(into)).toEqual([]);
    const [orgs] = await into.query<{ n: number }>("SELECT count(*)::int AS n FROM organizations");
    expect(orgs!.n).toBe(1);
    // An archive from a newer Tessera (a migration this build lacks) is refused, not half restored.
    const newer = await openEmptyPglite();
    await expect(restoreBackup(newer, { path, seal: SEAL, migrations: older.slice(0, -1) })).rejects.toThrow(
      /newer than this Tessera knows/,
    );
    expect(await tableNames(newer)).toEqual([]);
    // And a store already past the archive's schema cannot take it, forced or not.
    await expect(restoreBackup(into, { path, seal: SEAL, force: true })).rejects.toThrow(
      /migrations the backup does not/,
    );
    await newer.dispose();
    await into.dispose();
  });

  it("refuses a schema newer than the build knows, naming the migration", async () => {
    const store = await openMigratedPglite();
    await migrate(store);
    await assertSchemaKnown(store);
    await store.query("INSERT INTO tessera_migrations (version, name) VALUES (9999, 'from_the_future')");
    await expect(assertSchemaKnown(store)).rejects.toThrow(SchemaTooNew);
    await expect(assertSchemaKnown(store)).rejects.toThrow(
      /schema is at migration 9999_from_the_future, newer than this Tessera knows \(up to \d{4}_\w+\)/,
    );
    await store.dispose();
  });

  it("keeps the newest N archives and sweeps only stale temp files", async () => {
    const folder = mkdtempSync(join(dir, "prune-"));
    const names = ["20261101T000000Z", "20261102T000000Z", "20261103T000000Z", "20261104T000000Z"].map(
      (stamp) => `tessera-backup-${stamp}.ndjson.gz`,
    );
    for (const name of [...names, "notes.txt", ".tessera-backup-x.ndjson.gz.tmp-abc"]) {
      writeFileSync(join(folder, name), "x");
    }
    expect(await pruneBackups(folder, 2)).toEqual(names.slice(0, 2));
    // A temp file is a backup being written until it is ten minutes stale.
    const later = new Date(Date.now() + 11 * 60_000);
    expect(await pruneBackups(folder, 2, later)).toEqual([".tessera-backup-x.ndjson.gz.tmp-abc"]);
    const { readdirSync } = await import("node:fs");
    expect(readdirSync(folder).sort()).toEqual(["notes.txt", ...names.slice(2)]);
  });
});
