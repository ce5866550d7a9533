import postgres from "postgres";
import { AppError, disposable, recordingSpan } from "../core/index.ts";
import type { Queryable, Row, Store } from "./port.ts";
import { traceQuery, TRACEPARENT_SETTING } from "./trace.ts";

export interface PostgresStoreOptions {
  url: string;
  poolSize?: number;
  /** Extra connection options (tests use `connect_timeout`). */
  connectTimeoutS?: number;
}

/**
 * Errors that say the database cannot be reached now (refused, reset, restarting, out of
 * connections) rather than that a query is wrong: postgres.js's own connection codes, the
 * socket's, and SQLSTATE classes 08 (connection exception) and 57P (operator intervention).
 */
const UNREACHABLE = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "53300", // too_many_connections
]);
/** What a client is told to wait before it tries again while the database is unreachable. */
const RETRY_AFTER_S = "5";

/**
 * Rethrows `error`, as an `unavailable` AppError when the database cannot be reached: the
 * client gets a 503 with Retry-After (RFC 9110 §10.2.3), not a 500, since retrying is the remedy.
 */
function rethrow(error: unknown): never {
  const code = (error as { code?: unknown } | null)?.code;
  const unreachable =
    typeof code === "string" && (UNREACHABLE.has(code) || code.startsWith("08") || code.startsWith("57P"));
  if (!unreachable) throw error;
  throw new AppError("unavailable", "The database cannot be reached; retry shortly", {
    cause: error,
    headers: { "Retry-After": RETRY_AFTER_S },
  });
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
      const parent = recordingSpan();
      const bound = params as postgres.ParameterOrJSON<never>[];
      const rows = await (
        parent === undefined
          ? target.unsafe(text, bound, { prepare: true })
          : traceQuery(parent, text, () => target.unsafe(text, bound, { prepare: true }))
      ).catch(rethrow);
      return rows as unknown as T[];
    },
    async exec(script: string) {
      guard();
      // Without parameters postgres.js uses the simple protocol: several statements run.
      await target.unsafe(script).catch(rethrow);
    },
  });

  return disposable({
    kind: "postgres",
    ...on(sql),
    async transaction(fn) {
      guard();
      // sql.begin, not a reserved connection with BEGIN pipelined into the first statement:
      // postgres.js 3.4's reserve() hangs or crashes when the server restarts underneath it.
      const traceparent = recordingSpan()?.traceparent;
      const result = await sql
        .begin(
          traceparent === undefined
            ? (tx) => fn(on(tx))
            : async (tx) => {
                await tx.unsafe(TRACEPARENT_SETTING, [traceparent]);
                return fn(on(tx));
              },
        )
        .catch(rethrow);
      return result as Awaited<ReturnType<typeof fn>>;
    },
    async listen(channel, onNotify, onRelisten) {
      guard();
      // postgres.js keeps one connection for LISTEN and reconnects and re-listens on its own,
      // calling `onlisten` each time it listens: every call after the first is a reconnect.
      let listened = false;
      const onListen = () => {
        if (listened) onRelisten?.();
        listened = true;
      };
      const listening = await sql.listen(channel, (payload) => onNotify(payload), onListen);
      return () => listening.unlisten();
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await sql.end({ timeout: 5 });
    },
  });
}
