import type { PGlite, Transaction } from "@electric-sql/pglite";
import { disposable } from "../../core/index.ts";
import { createPgliteStore, migrate, type Queryable, type Store } from "../../store/index.ts";

/**
 * An in-memory PGlite store started from a migrated image instead of an empty database: a fresh
 * PGlite pays initdb (~1.4 s) and the migrations (~0.2 s) on every open, and the suite opens one or
 * more per file. The caller still runs `migrate(store)`, which finds nothing pending: the image is
 * made from this checkout's migrations, once per test worker, and never kept between runs.
 *
 * @example
 *   const store = await openMigratedPglite();
 *   await migrate(store); // []
 */
export async function openMigratedPglite(): Promise<Store> {
  return createPgliteStore({ loadDataDir: (await images()).migrated });
}

/** An in-memory PGlite store with no schema (what a restore goes into), without paying initdb. */
export async function openEmptyPglite(): Promise<Store> {
  return createPgliteStore({ loadDataDir: (await images()).empty });
}

interface Images {
  /** A data directory just after initdb. */
  empty: Blob;
  /** The same after `migrate`. */
  migrated: Blob;
}

// Per worker process: the pool keeps its workers' modules from one test file to the next
// (vitest.config.ts, `isolate: false`), so every file a worker runs starts from these images.
let made: Promise<Images> | undefined;

function images(): Promise<Images> {
  made ??= makeImages().catch((error: unknown) => {
    made = undefined; // the files that asked fail; the next one tries again
    throw error;
  });
  return made;
}

/**
 * An empty PGlite's data directory as a tarball, then again after `migrate`. PGlite itself rather
 * than the store, which does not hand its data directory out; `migrate` gets a store over it, so
 * the image holds what `migrate` makes, ledger included.
 */
async function makeImages(): Promise<Images> {
  const { PGlite } = await import("@electric-sql/pglite");
  const db = await PGlite.create();
  try {
    // Uncompressed: a store opens from it in ~0.5 s, from gzip in ~0.8 s.
    const empty = await db.dumpDataDir("none");
    await migrate(
      disposable<Store>({
        kind: "pglite",
        ...queryable(db),
        transaction: (fn) => db.transaction((tx) => fn(queryable(tx))),
        dispose: async () => {},
      }),
    );
    return { empty, migrated: await db.dumpDataDir("none") };
  } finally {
    await db.close();
  }
}

function queryable(db: PGlite | Transaction): Queryable {
  return {
    query: async <T extends object>(text: string, params: readonly unknown[] = []) =>
      (await db.query<T>(text, [...params])).rows,
    exec: async (script: string) => {
      await db.exec(script);
    },
  };
}
