import { mkdirSync } from "node:fs";
import type { PGlite, Transaction } from "@electric-sql/pglite";
import { AppError, disposable, recordingSpan } from "../core/index.ts";
import type { Queryable, Row, Store } from "./port.ts";
import { traceQuery, TRACEPARENT_SETTING } from "./trace.ts";

export interface PgliteStoreOptions {
  /** Folder for the database files; undefined keeps it in memory (tests). */
  dataDir?: string;
  /**
   * A data directory to start from instead of an empty database: a tarball as PGlite's
   * `dumpDataDir()` makes it. Tests start each store from one migrated image rather than paying
   * initdb and every migration again (test/helpers/pglite-image.ts).
   */
  loadDataDir?: Blob;
}

/**
 * The embedded default: Postgres compiled to WASM, one process. PGlite runs one
 * query at a time, so concurrency is queued inside it; transactions are exclusive.
 */
export async function createPgliteStore(options: PgliteStoreOptions = {}): Promise<Store> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  // Loaded here, not at import: PGlite's module takes ~0.2 s to load, which a process on PostgreSQL
  // or a CLI command that only speaks HTTP would pay for nothing.
  const { PGlite, types } = await import("@electric-sql/pglite");
  const parsers = {
    [types.DATE]: (value: string) => value,
    [types.INT8]: (value: string) => Number(value),
    [types.NUMERIC]: (value: string) => value,
  };
  const db = await PGlite.create(options.dataDir, { parsers, loadDataDir: options.loadDataDir });
  let disposed = false;

  const guard = () => {
    if (disposed) throw new AppError("disposed", "store is disposed");
  };
  const on = (target: PGlite | Transaction): Queryable => ({
    async query<T extends object = Row>(text: string, params: readonly unknown[] = []) {
      guard();
      const parent = recordingSpan();
      const result = await (parent === undefined
        ? target.query<T>(text, params as unknown[])
        : traceQuery(parent, text, () => target.query<T>(text, params as unknown[])));
      return result.rows;
    },
    async exec(script: string) {
      guard();
      await target.exec(script);
    },
  });

  return disposable<Store>({
    kind: "pglite",
    ...on(db),
    transaction: (fn) => {
      guard();
      const traceparent = recordingSpan()?.traceparent;
      if (traceparent === undefined) return db.transaction((tx) => fn(on(tx)));
      return db.transaction(async (tx) => {
        await tx.query(TRACEPARENT_SETTING, [traceparent]);
        return fn(on(tx));
      });
    },
    // In process: no connection to lose, so `onRelisten` is never called.
    async listen(channel, onNotify) {
      guard();
      const unlisten = await db.listen(channel, (payload) => onNotify(payload));
      return async () => {
        if (!disposed) await unlisten();
      };
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await db.close();
    },
  });
}
