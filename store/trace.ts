import { tracer, type TraceSpan } from "../core/index.ts";

/**
 * Store queries as spans, for both adapters. A query gets one only inside a sampled trace (a
 * request's, a delivery's: the worker's polling is never a trace of its own) and only when it took
 * `TESSERA_TRACE_QUERY_MIN_MS` or more, or failed: the queries one looks for in a trace are the slow
 * and the failed ones, and a span for each sub-millisecond read would multiply what is exported.
 * The span is made after the query, with its start and end times, so a fast query costs two clock
 * readings. It names the statement by its first keyword and first table (`SELECT invoices`):
 * never the SQL text, nor its parameters.
 */
export function traceQuery<T>(parent: TraceSpan, text: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  return run().then(
    (rows) => {
      const ended = performance.now();
      const current = tracer();
      if (current && ended - started >= current.queryMinMs) record(parent, text, started, ended);
      return rows;
    },
    (error: unknown) => {
      record(parent, text, started, performance.now(), error);
      throw error;
    },
  );
}

function record(parent: TraceSpan, text: string, started: number, ended: number, error?: unknown): void {
  const current = tracer();
  if (current === undefined) return;
  const summary = statementSummary(text);
  const span = current.start(summary.text, {
    kind: "client",
    parent,
    startTime: started,
    attributes: {
      "db.system.name": "postgresql",
      "db.operation.name": summary.operation,
      "db.collection.name": summary.table,
      "db.query.summary": summary.text,
    },
  });
  if (error !== undefined) span.fail(error);
  span.end(ended);
}

/**
 * The setting an event row's `traceparent` is filled from (migration 0024's default): a
 * transaction begun inside a sampled trace sets it first, so the events it records name the
 * request that recorded them, and their webhook deliveries' spans link to it.
 */
export const TRACEPARENT_SETTING = "SELECT set_config('tessera.traceparent', $1, true)";

export interface StatementSummary {
  /** `SELECT invoices`: the operation and the first table it names. */
  text: string;
  operation: string;
  table: string | undefined;
}

const FIRST_WORD = /^\s*(?:--[^\n]*\n\s*)*([A-Za-z]+)/;
/** The writes a statement may make, and the table each names. */
const WRITES: ReadonlyArray<readonly [string, RegExp]> = [
  ["INSERT", /\bINSERT\s+INTO\s+([A-Za-z_]\w*)/i],
  ["UPDATE", /\bUPDATE\s+([A-Za-z_]\w*)(?:\s+(?:AS\s+)?[A-Za-z_]\w*)?\s+SET\b/i],
  ["DELETE", /\bDELETE\s+FROM\s+([A-Za-z_]\w*)/i],
];
const FROM = /\bFROM\s+([A-Za-z_]\w*)/i;
/** The statements are the code's own (one per named query function): few, so each is read once. */
const summaries = new Map<string, StatementSummary>();
const MAX_SUMMARIES = 2_000;

/**
 * A statement as its operation and the table it is about: what a trace shows of a query. A
 * statement with a `WITH` is named by its first write (a create and its event in one: `INSERT
 * contacts`), else it is a `SELECT`.
 */
export function statementSummary(text: string): StatementSummary {
  const known = summaries.get(text);
  if (known) return known;
  const first = FIRST_WORD.exec(text)?.[1]?.toUpperCase() ?? "QUERY";
  let operation = first === "WITH" ? "SELECT" : first;
  let table: string | undefined;
  let at = Infinity;
  for (const [write, pattern] of WRITES) {
    if (first !== "WITH" && write !== first) continue;
    const match = pattern.exec(text);
    if (match && match.index < at) [at, operation, table] = [match.index, write, match[1]];
  }
  table = (table ?? FROM.exec(text)?.[1])?.toLowerCase();
  const summary = { text: table ? `${operation} ${table}` : operation, operation, table };
  // Lists build their SQL from filters: bounded, but not known in advance.
  if (summaries.size >= MAX_SUMMARIES) summaries.clear();
  summaries.set(text, summary);
  return summary;
}
