import { newId } from "../core/index.ts";
import {
  addTimeBounds,
  likePattern,
  selectPage,
  SqlWhere,
  type ListQuery,
  type Page,
} from "../engines/index.ts";
import type { Queryable } from "../store/index.ts";
import { renderLog, type LogRow } from "./function-rows.ts";
import type { FunctionLog, FunctionLogLevel } from "./function-schemas.ts";

/**
 * The SQL of functions' console lines, one named function per query: the invoker writes
 * an invocation's lines in one statement, `GET …/logs` pages them, housekeeping purges them.
 */

export interface LogLines {
  orgId: string;
  functionId: string;
  version: number;
  requestId: string;
  now: Date;
  /** In the order written: their index is their `seq`. */
  lines: ReadonlyArray<{ level: FunctionLogLevel; message: string }>;
}

/** Saves one invocation's lines in one statement. */
export async function insertLogLines(db: Queryable, input: LogLines): Promise<void> {
  const { lines } = input;
  await db.query(
    `INSERT INTO function_logs (id, org_id, function_id, version, request_id, level, message, seq, created_at)
     SELECT id, $1, $2, $3, $4, level, message, seq, $5::timestamptz
     FROM unnest($6::text[], $7::text[], $8::text[], $9::int[]) AS line (id, level, message, seq)`,
    [
      input.orgId,
      input.functionId,
      input.version,
      input.requestId,
      input.now.toISOString(),
      lines.map(() => newId("flog")),
      lines.map((line) => line.level),
      // PostgreSQL text cannot hold U+0000.
      lines.map((line) => line.message.replaceAll("\u0000", "\uFFFD")),
      lines.map((_, index) => index),
    ],
  );
}

/** `GET /v1/functions/{name}/logs`: `level`, `request_id`, `q` (in the message) and time filters. */
export function selectLogPage(
  db: Queryable,
  orgId: string,
  functionId: string,
  query: ListQuery,
): Promise<Page<FunctionLog>> {
  const where = new SqlWhere();
  where.add(`org_id = ${where.bind(orgId)}`);
  where.add(`function_id = ${where.bind(functionId)}`);
  const levels = query.filters.level;
  if (levels?.length) where.add(`level = ANY(${where.bind(levels)}::text[])`);
  const requestId = query.filters.request_id?.[0];
  if (requestId) where.add(`request_id = ${where.bind(requestId)}`);
  if (query.q) where.add(`message ILIKE ${where.bind(likePattern(query.q))}`);
  addTimeBounds(where, query, { created: "created_at" });
  const order = query.sort.descending ? "DESC" : "ASC";
  const orderBy = `created_at ${order}, seq ${order}, id ${order}`;
  return selectPage(db, { from: "function_logs", where, orderBy }, query, (row: LogRow) => renderLog(row));
}

/** Deletes function log lines written before `before`; returns how many. */
export async function purgeFunctionLogs(db: Queryable, before: Date): Promise<number> {
  const rows = await db.query<{ n: number }>(
    "WITH gone AS (DELETE FROM function_logs WHERE created_at < $1::timestamptz RETURNING 1) SELECT count(*) AS n FROM gone",
    [before.toISOString()],
  );
  return Number(rows[0]?.n ?? 0);
}
