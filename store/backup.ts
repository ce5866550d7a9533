import { createHash, createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { createReadStream, createWriteStream, readFileSync } from "node:fs";
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import { randomBase62 } from "../core/index.ts";
import {
  applyMigrations,
  appliedMigrations,
  listMigrations,
  MIGRATION_LOCK_ID,
  type Migration,
} from "./migrate.ts";
import type { Queryable, Store } from "./port.ts";

/**
 * Backups: every table of the store, read in one snapshot, written to one portable archive, and
 * restored from it into an empty store of either kind (PGlite → PostgreSQL is the move off the
 * embedded store; the reverse works the same way).
 *
 * The archive is gzip text, one line each:
 *
 *   {"format":"tessera-backup",…}   the manifest (below), alone in the first gzip member
 *   #table organizations              then, per table in the manifest's order, its name
 *   {"id":"org_…","name":"default",…}   and its rows, one `row_to_json` each
 *
 * Rows are PostgreSQL's own JSON of the row: jsonb as JSON, numeric with every digit, bytea as
 * `\x…` hex, timestamps with their offset. `json_populate_recordset` reads them back with the
 * column types' own input functions, so neither side converts a value (PGlite is PostgreSQL).
 * The lines are never parsed in JavaScript on the way: a numeric's digits cannot be rounded.
 *
 * The manifest holds each table's columns, row count and SHA-256 over its lines, and an HMAC
 * under TESSERA_SECRET over the rest: a truncated, edited or re-checksummed archive is refused
 * before anything is written. Sealed values (webhook secrets, function secrets) stay sealed: the
 * archive needs the same TESSERA_SECRET, and says which one by its fingerprint.
 */

export const BACKUP_FORMAT = "tessera-backup";
/** Raise when a reader of the old format could not read the new one. */
export const BACKUP_FORMAT_VERSION = 1;
/** What a backup file is named: sorted by name, they are sorted by time. */
export const BACKUP_FILE = /^tessera-backup-\d{8}T\d{6}Z\.ndjson\.gz$/;

/** Rows fetched from the snapshot's cursor at a time: bounded memory whatever the table's size. */
const FETCH_ROWS = 1_000;
/** Rows (or bytes of their JSON) sent to the store per INSERT on restore. */
const INSERT_ROWS = 1_000;
const INSERT_BYTES = 4 * 1024 * 1024;
const TABLE_MARK = "#table ";

export interface BackupTable {
  name: string;
  /** The columns written, in order; generated columns are left out (they are computed again). */
  columns: string[];
  rows: number;
  /** Hex SHA-256 over the table's row lines, each with its "\n". */
  sha256: string;
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  format_version: number;
  tessera_version: string;
  /** The newest migration applied to the store backed up; every one up to it is in `migrations`. */
  schema_version: number;
  migrations: number[];
  created_at: string;
  store: Store["kind"];
  /** Which TESSERA_SECRET sealed the secrets inside (`BackupSeal.fingerprint`); a restore needs the same. */
  secret_fingerprint: string;
  tables: BackupTable[];
  /** HMAC-SHA256 under the secret over the manifest without this field. */
  mac: string;
}

/** The archive is not one this build can restore: truncated, tampered, another format or secret. */
export class ArchiveError extends Error {
  override name = "ArchiveError";
}

/** The target store cannot take this restore as it is (not empty, or a newer schema). */
export class RestoreRefused extends Error {
  override name = "RestoreRefused";
}

/**
 * What ties archives to TESSERA_SECRET, without holding the secret where it is passed around: its
 * fingerprint (safe to show: one-way, it tells two secrets apart and reveals neither) and the seal
 * of a manifest (an HMAC under a key derived from the secret).
 */
export interface BackupSeal {
  readonly fingerprint: string;
  seal(manifest: Omit<BackupManifest, "mac">): string;
}

export function createBackupSeal(secret: string): BackupSeal {
  if (!secret) throw new Error("a backup seal needs a non-empty secret");
  const fingerprint = Buffer.from(hkdfSync("sha256", secret, "tessera", "backup fingerprint v1", 16));
  const key = Buffer.from(hkdfSync("sha256", secret, "tessera", "backup manifest v1", 32));
  return {
    fingerprint: `sha256:${fingerprint.toString("hex")}`,
    seal: (manifest) =>
      `hmac-sha256:${createHmac("sha256", key).update(JSON.stringify(manifest)).digest("hex")}`,
  };
}

const TESSERA_VERSION = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

interface TableInfo {
  name: string;
  columns: string[];
  /** Columns whose default draws from a sequence (bigserial): the sequence is moved past them. */
  serial: string[];
}

/**
 * The store's tables (schema `public`, the migrations' ledger aside), parents before children by
 * their foreign keys, so rows can be inserted in this order with every constraint checked.
 */
async function listTables(db: Queryable): Promise<TableInfo[]> {
  const columns = await db.query<{ table: string; column: string; serial: boolean }>(
    `SELECT c.relname AS table, a.attname AS column,
            coalesce(pg_get_expr(d.adbin, d.adrelid) LIKE 'nextval(%', false) AS serial
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
      WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attgenerated = ''
        AND c.relname <> 'tessera_migrations'
      ORDER BY c.relname, a.attnum`,
  );
  const edges = await db.query<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent
       FROM pg_constraint k
       JOIN pg_class c ON c.oid = k.conrelid
       JOIN pg_class p ON p.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE k.contype = 'f' AND n.nspname = 'public' AND c.oid <> p.oid`,
  );
  const tables = new Map<string, TableInfo>();
  for (const row of columns) {
    const table = tables.get(row.table) ?? { name: row.table, columns: [], serial: [] };
    table.columns.push(row.column);
    if (row.serial) table.serial.push(row.column);
    tables.set(row.table, table);
  }
  const parents = new Map<string, Set<string>>();
  for (const { child, parent } of edges) {
    if (!parents.has(child)) parents.set(child, new Set());
    parents.get(child)!.add(parent);
  }
  // Depth-first, parents first; names sorted so two stores with one schema list tables alike.
  const ordered: TableInfo[] = [];
  const placed = new Set<string>();
  const place = (name: string, path: readonly string[]) => {
    if (placed.has(name) || !tables.has(name)) return;
    if (path.includes(name)) throw new Error(`foreign keys form a cycle: ${[...path, name].join(" → ")}`);
    for (const parent of [...(parents.get(name) ?? [])].sort()) place(parent, [...path, name]);
    placed.add(name);
    ordered.push(tables.get(name)!);
  };
  for (const name of [...tables.keys()].sort()) place(name, []);
  return ordered;
}

async function migrationVersions(db: Queryable): Promise<number[]> {
  return (await appliedMigrations(db)).map((row) => row.version);
}

/** Writes `text` to `out`, waiting when its buffer is full (a slow disk slows the reader, not memory). */
function write(out: Writable, text: string): Promise<void> | undefined {
  if (out.write(text)) return undefined;
  return new Promise((resolve, reject) => {
    const done = () => {
      out.off("error", reject);
      resolve();
    };
    out.once("drain", done);
    out.once("error", reject);
  });
}

/**
 * Streams every table's rows from one snapshot into `out` (uncompressed lines), and returns the
 * manifest of what was written. One transaction, REPEATABLE READ and READ ONLY: on PostgreSQL the
 * server keeps taking writes and the archive sees none made after it began; PGlite runs one
 * transaction at a time, so its writers wait for the backup instead (what the store allows).
 */
async function dumpSnapshot(
  store: Store,
  out: Writable,
  seal: BackupSeal,
  now: Date,
): Promise<Omit<BackupManifest, "mac">> {
  return store.transaction(async (tx) => {
    await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    const migrations = await migrationVersions(tx);
    if (migrations.length === 0) throw new Error("the store has no schema yet: nothing to back up");
    const tables: BackupTable[] = [];
    for (const table of await listTables(tx)) {
      const pending = write(out, `${TABLE_MARK}${table.name}\n`);
      if (pending) await pending;
      const hash = createHash("sha256");
      let rows = 0;
      const list = table.columns.map(ident).join(", ");
      await tx.query(
        `DECLARE tessera_backup NO SCROLL CURSOR FOR
           SELECT row_to_json(r)::text AS line FROM (SELECT ${list} FROM ${ident(table.name)}) r`,
      );
      for (;;) {
        const batch = await tx.query<{ line: string }>(`FETCH ${FETCH_ROWS} FROM tessera_backup`);
        for (const { line } of batch) {
          const text = `${line}\n`;
          hash.update(text);
          rows += 1;
          const waiting = write(out, text);
          if (waiting) await waiting;
        }
        if (batch.length < FETCH_ROWS) break;
      }
      await tx.query("CLOSE tessera_backup");
      tables.push({ name: table.name, columns: table.columns, rows, sha256: hash.digest("hex") });
    }
    return {
      format: BACKUP_FORMAT,
      format_version: BACKUP_FORMAT_VERSION,
      tessera_version: TESSERA_VERSION,
      schema_version: migrations[migrations.length - 1]!,
      migrations,
      created_at: now.toISOString(),
      store: store.kind,
      secret_fingerprint: seal.fingerprint,
      tables,
    };
  });
}

/** `tessera-backup-20261128T054103Z.ndjson.gz`: the file name a backup made at `now` gets. */
export function backupFileName(now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replace(/[-:]/g, "");
  return `tessera-backup-${stamp}.ndjson.gz`;
}

/**
 * Writes a backup of `store` to `path`, atomically: everything goes to temp files beside it, and
 * only a whole, synced archive is renamed to `path`. A crash (even kill -9) leaves at most a
 * `.tmp-` file, which `pruneBackups` removes, never half an archive under the real name.
 */
export async function writeBackup(
  store: Store,
  options: { path: string; seal: BackupSeal; now?: Date },
): Promise<BackupManifest> {
  const now = options.now ?? new Date();
  const dir = dirname(options.path);
  const tag = `.${basename(options.path)}.tmp-${randomBase62(8)}`;
  const rowsPath = join(dir, `${tag}.rows`);
  const wholePath = join(dir, tag);
  try {
    // The rows first (their counts and checksums make the manifest), gzip member two.
    const gzip = createGzip();
    const rowsFile = createWriteStream(rowsPath, { mode: 0o600 });
    const written = pipeline(gzip, rowsFile);
    let content: Omit<BackupManifest, "mac">;
    try {
      content = await dumpSnapshot(store, gzip, options.seal, now);
    } catch (error) {
      gzip.destroy();
      await written.catch(() => undefined);
      throw error;
    }
    gzip.end();
    await written;
    const manifest: BackupManifest = { ...content, mac: options.seal.seal(content) };
    // The manifest, gzip member one, then the rows' member appended: gunzip reads both as one text.
    const whole = createWriteStream(wholePath, { mode: 0o600 });
    await pipeline(Readable.from([JSON.stringify(manifest) + "\n"]), createGzip(), whole);
    await pipeline(createReadStream(rowsPath), createWriteStream(wholePath, { flags: "a" }));
    const handle = await open(wholePath, "r+");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(wholePath, options.path);
    return manifest;
  } finally {
    await rm(rowsPath, { force: true });
    await rm(wholePath, { force: true });
  }
}

/** One section of an archive as read back: a table's name and its lines, as written. */
interface ArchiveSection {
  table: string;
  lines: AsyncGenerator<string, void>;
}

/**
 * Reads an archive: its manifest, then its sections in order. Broken gzip (a truncated file)
 * surfaces as an ArchiveError from whichever read meets it.
 */
async function openArchive(
  path: string,
): Promise<{ manifest: BackupManifest; sections: () => AsyncGenerator<ArchiveSection, void> }> {
  const input = createReadStream(path);
  const gunzip = createGunzip();
  input.on("error", (error) => gunzip.destroy(error));
  input.pipe(gunzip);
  const lines = createInterface({ input: gunzip, crlfDelay: Infinity })[Symbol.asyncIterator]();
  const broken = (error: unknown): never => {
    if (error instanceof ArchiveError) throw error;
    const code = (error as { code?: string }).code;
    if (code === "ENOENT") throw new ArchiveError(`no such file: ${path}`);
    throw new ArchiveError(`${path} is not a whole Tessera backup (${(error as Error).message})`);
  };
  const next = async () => {
    try {
      return await lines.next();
    } catch (error) {
      return broken(error);
    }
  };
  const close = () => {
    input.destroy();
    gunzip.destroy();
  };
  const first = await next();
  let manifest: BackupManifest;
  try {
    if (first.done) throw new Error("empty");
    manifest = JSON.parse(first.value) as BackupManifest;
  } catch {
    close();
    throw new ArchiveError(`${path} is not a Tessera backup: its first line is not a manifest`);
  }
  if (manifest?.format !== BACKUP_FORMAT) {
    close();
    throw new ArchiveError(`${path} is not a Tessera backup (format: ${String(manifest?.format)})`);
  }
  async function* sections(): AsyncGenerator<ArchiveSection, void> {
    try {
      let line = await next();
      while (!line.done) {
        if (!line.value.startsWith(TABLE_MARK)) {
          throw new ArchiveError(`${path} is damaged: a row stands outside any table`);
        }
        const table = line.value.slice(TABLE_MARK.length);
        let ended = false;
        async function* rows(): AsyncGenerator<string, void> {
          for (;;) {
            line = await next();
            if (line.done || line.value.startsWith(TABLE_MARK)) {
              ended = true;
              return;
            }
            yield line.value;
          }
        }
        const section = rows();
        yield { table, lines: section };
        // The reader may stop early; the rest of the section is read (and dropped) here.
        if (!ended) for await (const _ of section) void _;
      }
    } finally {
      close();
    }
  }
  return { manifest, sections };
}

/** Whether `manifest` carries the seal `seal` gives it, compared in constant time. */
function sealMatches(manifest: BackupManifest, seal: BackupSeal): boolean {
  const { mac, ...content } = manifest;
  const expected = Buffer.from(seal.seal(content));
  const given = Buffer.from(String(mac ?? ""));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Reads the whole archive and checks it against its manifest: the format, the secret, the
 * manifest's seal, and each table's row count and checksum. Writes nothing; returns the manifest.
 */
export async function verifyBackup(path: string, seal: BackupSeal): Promise<BackupManifest> {
  const { manifest, sections } = await openArchive(path);
  if (manifest.format_version > BACKUP_FORMAT_VERSION) {
    throw new ArchiveError(
      `${path} is a backup of format ${manifest.format_version}, newer than this Tessera reads (${BACKUP_FORMAT_VERSION}): restore it with Tessera ${manifest.tessera_version} or newer`,
    );
  }
  const fingerprint = seal.fingerprint;
  if (manifest.secret_fingerprint !== fingerprint) {
    throw new ArchiveError(
      `${path} was made under another TESSERA_SECRET (fingerprint ${manifest.secret_fingerprint}; this one's is ${fingerprint}): set TESSERA_SECRET to the secret of the server that made it (the embedded store keeps it in $TESSERA_DATA_DIR/secret)`,
    );
  }
  if (!sealMatches(manifest, seal)) {
    throw new ArchiveError(`${path} was changed after it was written: its manifest's seal does not match`);
  }
  const expected = new Map(manifest.tables.map((table) => [table.name, table]));
  const seen = new Set<string>();
  for await (const section of sections()) {
    const table = expected.get(section.table);
    if (!table || seen.has(section.table)) {
      throw new ArchiveError(`${path} is damaged: table ${section.table} is not in its manifest`);
    }
    seen.add(section.table);
    const hash = createHash("sha256");
    let rows = 0;
    for await (const line of section.lines) {
      hash.update(`${line}\n`);
      rows += 1;
    }
    if (rows !== table.rows || hash.digest("hex") !== table.sha256) {
      throw new ArchiveError(
        `${path} is damaged: table ${table.name} holds ${rows} rows that do not match its checksum (the manifest says ${table.rows})`,
      );
    }
  }
  const missing = manifest.tables.filter((table) => !seen.has(table.name)).map((table) => table.name);
  if (missing.length > 0) {
    throw new ArchiveError(`${path} is truncated: tables ${missing.join(", ")} are missing`);
  }
  return manifest;
}

export interface RestoreOptions {
  path: string;
  seal: BackupSeal;
  /** Empty a store that holds data first (its schema must not be newer than the archive's). */
  force?: boolean;
  /** The migrations this build ships (tests pass their own). */
  migrations?: Migration[];
}

export interface RestoreSummary {
  manifest: BackupManifest;
  rows: number;
  /** Migrations newer than the archive's, applied after its rows. */
  migrated: number[];
}

/**
 * Restores an archive into `store`, in one transaction: checks the archive whole first (nothing is
 * written for a bad one), then applies the archive's migrations, inserts every row with the
 * tables' triggers off (the rows already hold what the triggers would derive: webhook deliveries,
 * counters), moves sequences past the restored rows, applies this build's newer migrations, and
 * counts every table against the manifest before it commits.
 */
export async function restoreBackup(store: Store, options: RestoreOptions): Promise<RestoreSummary> {
  const known = options.migrations ?? listMigrations();
  const manifest = await verifyBackup(options.path, options.seal);
  const knownVersions = new Set(known.map((m) => m.version));
  const unknown = manifest.migrations.filter((version) => !knownVersions.has(version));
  if (unknown.length > 0) {
    throw new RestoreRefused(
      `the backup's schema (migration ${manifest.schema_version}) is newer than this Tessera knows (${known.at(-1)?.version ?? 0}): restore it with Tessera ${manifest.tessera_version} or newer`,
    );
  }
  const inArchive = new Set(manifest.migrations);
  return store.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
    const applied = await migrationVersions(tx);
    const newer = applied.filter((version) => !inArchive.has(version));
    if (newer.length > 0) {
      throw new RestoreRefused(
        `the store's schema has migrations the backup does not (${newer.join(", ")}): restore into an empty database`,
      );
    }
    if (applied.length > 0) {
      const holding = await tablesWithRows(tx);
      if (holding.length > 0 && !options.force) {
        throw new RestoreRefused(
          `the store is not empty (${holding.slice(0, 5).join(", ")}${holding.length > 5 ? ", …" : ""} hold rows): restore into an empty database, or pass --force to replace what it holds`,
        );
      }
    }
    await applyMigrations(
      tx,
      known.filter((m) => inArchive.has(m.version) && !applied.includes(m.version)),
    );
    const tables = await listTables(tx);
    const byName = new Map(tables.map((table) => [table.name, table]));
    // Triggers off for the load (ALTER TABLE: the tables' owner may, no superuser needed), and the
    // store emptied under them so TRUNCATE's own triggers do not write either.
    for (const table of tables) await tx.exec(`ALTER TABLE ${ident(table.name)} DISABLE TRIGGER USER`);
    if (options.force && tables.length > 0) {
      await tx.exec(`TRUNCATE ${tables.map((t) => ident(t.name)).join(", ")}`);
    }
    let total = 0;
    const { sections } = await openArchive(options.path);
    const declared = new Map(manifest.tables.map((table) => [table.name, table]));
    for await (const section of sections()) {
      const table = byName.get(section.table);
      const columns = declared.get(section.table)?.columns;
      if (!table || !columns)
        throw new ArchiveError(`the store has no table ${section.table} at this schema`);
      const missing = columns.filter((column) => !table.columns.includes(column));
      if (missing.length > 0) {
        throw new ArchiveError(`table ${table.name} has no column ${missing.join(", ")} at this schema`);
      }
      total += await insertSection(tx, table.name, columns, section.lines);
    }
    for (const table of tables) {
      for (const column of table.serial) {
        await tx.query(
          `SELECT setval(pg_get_serial_sequence($1, $2), coalesce(max(${ident(column)}), 1), max(${ident(column)}) IS NOT NULL) FROM ${ident(table.name)}`,
          [table.name, column],
        );
      }
      await tx.exec(`ALTER TABLE ${ident(table.name)} ENABLE TRIGGER USER`);
    }
    const migrated = await applyMigrations(
      tx,
      known.filter((m) => !inArchive.has(m.version)),
    );
    for (const expected of manifest.tables) {
      const [row] = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${ident(expected.name)}`);
      if (Number(row?.n) !== expected.rows) {
        throw new ArchiveError(
          `table ${expected.name} holds ${row?.n} rows after the restore, the backup ${expected.rows}: nothing was restored`,
        );
      }
    }
    return { manifest, rows: total, migrated };
  });
}

/** Inserts a section's rows in batches, each one statement; returns how many. */
async function insertSection(
  tx: Queryable,
  table: string,
  columns: string[],
  lines: AsyncIterable<string>,
): Promise<number> {
  const list = columns.map(ident).join(", ");
  const sql = `INSERT INTO ${ident(table)} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${ident(table)}, $1::text::json)`;
  let batch: string[] = [];
  let bytes = 0;
  let count = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await tx.query(sql, [`[${batch.join(",")}]`]);
    count += batch.length;
    batch = [];
    bytes = 0;
  };
  for await (const line of lines) {
    batch.push(line);
    bytes += line.length;
    if (batch.length >= INSERT_ROWS || bytes >= INSERT_BYTES) await flush();
  }
  await flush();
  return count;
}

/** The tables holding at least one row (the ledger aside). */
async function tablesWithRows(db: Queryable): Promise<string[]> {
  const holding: string[] = [];
  for (const table of await listTables(db)) {
    const [row] = await db.query<{ any: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${ident(table.name)}) AS any`,
    );
    if (row?.any) holding.push(table.name);
  }
  return holding;
}

/**
 * One backup into `dir` under its time's name, then the newest `keep` kept (the worker's schedule,
 * `TESSERA_BACKUP_CRON`).
 */
export async function writeBackupInto(
  store: Store,
  options: { dir: string; keep: number; seal: BackupSeal; now: Date },
): Promise<{ path: string; manifest: BackupManifest; pruned: string[] }> {
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  const path = join(options.dir, backupFileName(options.now));
  const manifest = await writeBackup(store, { path, seal: options.seal, now: options.now });
  const pruned = await pruneBackups(options.dir, options.keep, options.now);
  return { path, manifest, pruned };
}

/** A writer's temp files are fresh while it writes; older ones were left by a crash. */
const STALE_TEMP_MS = 10 * 60_000;

/**
 * Keeps the `keep` newest archives in `dir` (by their names, which sort by time) and deletes the
 * rest, with the temp files a crashed backup left behind. Touches only files named as Tessera
 * names them. Returns the names deleted.
 */
export async function pruneBackups(dir: string, keep: number, now = new Date()): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const archives = names.filter((name) => BACKUP_FILE.test(name)).sort();
  const old = archives.slice(0, Math.max(0, archives.length - keep));
  const temps: string[] = [];
  for (const name of names) {
    if (!/^\.tessera-backup-.*\.tmp-/.test(name)) continue;
    const info = await stat(join(dir, name)).catch(() => undefined);
    if (info && now.getTime() - info.mtimeMs > STALE_TEMP_MS) temps.push(name);
  }
  for (const name of [...old, ...temps]) await rm(join(dir, name), { force: true });
  return [...old, ...temps];
}
