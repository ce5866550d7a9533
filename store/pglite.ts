import { mkdirSync } from "node:fs";
import { PGlite, types, type Transaction } from "@electric-sql/pglite";
import { AppError } from "../core/index.ts";
import type { Queryable, Row, Store } from "./port.ts";

const PARSERS = {
  [types.DATE]: (value: string) => value,
  [types.INT8]: (value: string) => Number(value),
  [types.NUMERIC]: (value: string) => value,
};

export interface PgliteStoreOptions {
  /** Folder for the database files; undefined keeps it in memory (tests). */
  dataDir?: string;
}

/**
 * The embedded default: Postgres compiled to WASM, one process. PGlite runs one
 * query at a time, so concurrency is queued inside it; transactions are exclusive.
 */
export async function createPgliteStore(options: PgliteStoreOptions = {}): Promise<Store> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const db = await PGlite.create(options.dataDir, { parsers: PARSERS });
  let disposed = false;

  const guard = () => {
    if (disposed) throw new AppError("disposed", "store is disposed");
  };
  const on = (target: PGlite | Transaction): Queryable => ({
    async query<T extends object = Row>(text: string, params: readonly unknown[] = []) {
      guard();
      const result = await target.query<T>(text, params as unknown[]);
      return result.rows;
    },
    async exec(script: string) {
      guard();
      await target.exec(script);
    },
  });

  return {
    kind: "pglite",
    ...on(db),
    transaction: (fn) => {
      guard();
      return db.transaction((tx) => fn(on(tx)));
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
  };
}
