import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Queryable, Store } from "./port.ts";

const MIGRATIONS_DIR = new URL("./migrations/", import.meta.url).pathname;
const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;
// Any constant works; it only has to be the same for every Tessera process.
export const MIGRATION_LOCK_ID = 724_551_001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The numbered migrations shipped with this build, in order. Two files with one number is a build error. */
export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const migrations = readdirSync(dir)
    .filter((file) => FILE_NAME.test(file))
    .sort()
    .map((file) => {
      const [, version, name] = FILE_NAME.exec(file) as RegExpExecArray;
      return { version: Number(version), name: name!, sql: readFileSync(join(dir, file), "utf8") };
    });
  for (const [index, migration] of migrations.entries()) {
    const previous = migrations[index - 1];
    if (previous?.version === migration.version) {
      throw new Error(
        `two migrations numbered ${migration.version} (${previous.name}, ${migration.name}): renumber the newer one`,
      );
    }
  }
  return migrations;
}

const CREATE_LEDGER = `
  CREATE TABLE IF NOT EXISTS tessera_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`;

/**
 * Applies pending migrations, each in its own transaction. An advisory lock makes
 * concurrent starts of several nodes safe: one applies, the others wait and skip.
 * The ledger is made under the same lock: `CREATE TABLE IF NOT EXISTS` run by two
 * sessions at once on an empty database fails one of them (a duplicate `pg_type` row).
 * Returns the versions applied.
 */
export async function migrate(store: Store, migrations = listMigrations()): Promise<number[]> {
  await store.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
    await tx.exec(CREATE_LEDGER);
  });
  const applied: number[] = [];
  for (const migration of migrations) {
    const done = await store.transaction(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
      return (await applyMigrations(tx, [migration])).length > 0;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}

/**
 * Applies those of `migrations` the ledger lacks, in the caller's transaction (which holds the
 * advisory lock): a restore applies the archive's schema, its rows and the newer migrations in one.
 * Returns the versions applied.
 */
export async function applyMigrations(tx: Queryable, migrations: readonly Migration[]): Promise<number[]> {
  await tx.exec(CREATE_LEDGER);
  const applied: number[] = [];
  for (const migration of migrations) {
    const rows = await tx.query("SELECT 1 FROM tessera_migrations WHERE version = $1", [migration.version]);
    if (rows.length > 0) continue;
    await tx.exec(migration.sql);
    await tx.query("INSERT INTO tessera_migrations (version, name) VALUES ($1, $2)", [
      migration.version,
      migration.name,
    ]);
    applied.push(migration.version);
  }
  return applied;
}

/**
 * Refuses a store whose schema is newer than this build: migrations in its ledger that this build
 * does not ship were applied by a newer Tessera, and a node that runs against a schema it does not
 * know would half work. Checked at start, before anything is applied.
 */
export async function assertSchemaKnown(store: Queryable, migrations = listMigrations()): Promise<void> {
  const known = new Set(migrations.map((m) => m.version));
  const rows = await appliedMigrations(store);
  const unknown = rows.filter((row) => !known.has(Number(row.version)));
  if (unknown.length === 0) return;
  const newest = unknown[unknown.length - 1]!;
  const last = migrations[migrations.length - 1];
  throw new SchemaTooNew(
    `the database's schema is at migration ${migrationLabel(newest)}, newer than this Tessera knows (up to ${last ? migrationLabel(last) : "none"}): start the Tessera version that migrated it, or a newer one`,
  );
}

/** A node older than the schema: it refuses to start rather than half work. */
export class SchemaTooNew extends Error {
  override name = "SchemaTooNew";
}

const migrationLabel = (m: { version: number; name: string }) =>
  `${String(m.version).padStart(4, "0")}_${m.name}`;

/** The ledger's migrations, oldest first; none when the store has no ledger yet. */
export async function appliedMigrations(db: Queryable): Promise<Array<{ version: number; name: string }>> {
  const [ledger] = await db.query<{ exists: boolean }>(
    "SELECT to_regclass('tessera_migrations') IS NOT NULL AS exists",
  );
  if (!ledger?.exists) return [];
  const rows = await db.query<{ version: number; name: string }>(
    "SELECT version, name FROM tessera_migrations ORDER BY version",
  );
  return rows.map((row) => ({ version: Number(row.version), name: row.name }));
}

/** Migrations not yet applied (readiness: none may be pending). */
export async function pendingMigrations(store: Store, migrations = listMigrations()): Promise<number[]> {
  const have = new Set((await appliedMigrations(store)).map((row) => row.version));
  return migrations.filter((m) => !have.has(m.version)).map((m) => m.version);
}
