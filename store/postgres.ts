import postgres from "postgres";
import { AppError } from "../core/index.ts";
import type { Queryable, Row, Store } from "./port.ts";

export interface PostgresStoreOptions {
  url: string;
  poolSize?: number;
  /** Extra connection options (tests use `connect_timeout`). */
  connectTimeoutS?: number;
}

// Same JS types as the PGlite adapter: see port.ts.
const TYPES = {
  date: { to: 1082, from: [1082], serialize: (v: string) => v, parse: (v: string) => v },
  int8: { to: 20, from: [20], serialize: (v: number) => String(v), parse: (v: string) => Number(v) },
};

/** PostgreSQL through postgres.js, for deployments that scale out. */
export function createPostgresStore(options: PostgresStoreOptions): Store {
  const sql = postgres(options.url, {
    max: options.poolSize ?? 10,
    connect_timeout: options.connectTimeoutS ?? 10,
    onnotice: () => {},
    types: TYPES,
    connection: { application_name: "tessera" },
  });
  let disposed = false;

  const guard = () => {
    if (disposed) throw new AppError("disposed", "store is disposed");
  };
  const on = (target: postgres.Sql | postgres.TransactionSql): Queryable => ({
    async query<T extends object = Row>(text: string, params: readonly unknown[] = []) {
      guard();
      const rows = await target.unsafe(text, params as postgres.ParameterOrJSON<never>[], {
        prepare: true,
      });
      return rows as unknown as T[];
    },
    async exec(script: string) {
      guard();
      // Without parameters postgres.js uses the simple protocol: several statements run.
      await target.unsafe(script);
    },
  });

  return {
    kind: "postgres",
    ...on(sql),
    async transaction(fn) {
      guard();
      // sql.begin, not a reserved connection with BEGIN pipelined into the first statement:
      // postgres.js 3.4's reserve() hangs or crashes when the server restarts underneath it.
      return (await sql.begin((tx) => fn(on(tx)))) as Awaited<ReturnType<typeof fn>>;
    },
    async listen(channel, onNotify) {
      guard();
      // postgres.js keeps one connection for LISTEN and reconnects and re-listens on its own.
      const listening = await sql.listen(channel, () => onNotify());
      return () => listening.unlisten();
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await sql.end({ timeout: 5 });
    },
  };
}
