import postgres from "postgres";
import { randomBase62 } from "../../core/index.ts";
import { createPostgresStore, migrate, type Store } from "../../store/index.ts";
import { openMigratedPglite } from "./pglite-image.ts";

/**
 * The stores a suite runs on: PGlite always, PostgreSQL too when TEST_DATABASE_URL
 * is set (Hono's `runTest({ newRouter })` pattern). Suites share one migrated
 * database per kind and isolate themselves by creating their own organizations. PGlite opens
 * from a migrated image (pglite-image.ts), so `migrate` finds nothing to do there.
 */
export interface StoreKind {
  name: string;
  open(): Promise<Store>;
}

export function storeKinds(): StoreKind[] {
  const kinds: StoreKind[] = [{ name: "pglite", open: () => migrated(openMigratedPglite()) }];
  const url = process.env.TEST_DATABASE_URL;
  if (url)
    kinds.push({
      name: "postgres",
      open: () => migrated(Promise.resolve(createPostgresStore({ url, poolSize: 4 }))),
    });
  return kinds;
}

async function migrated(opening: Promise<Store>): Promise<Store> {
  const store = await opening;
  await migrate(store);
  return store;
}

/** An empty database beside the one `url` names (no schema); `drop()` removes it. */
export async function emptyDatabase(
  url: string,
  prefix = "test",
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBase62(10).toLowerCase()}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const own = new URL(url);
  own.pathname = `/${name}`;
  return {
    url: own.toString(),
    async drop() {
      const drop = postgres(url, { max: 1, onnotice: () => {} });
      await drop.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await drop.end();
    },
  };
}
