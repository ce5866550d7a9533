import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { describeFailure, type ApiAnswer, type FunctionsClient } from "./api-client.ts";

/**
 * What a deployed function does, seen from the CLI: `functions logs NAME [--follow]` and
 * `functions trigger NAME --event TYPE [--data FILE]`.
 */

export interface LogLine {
  id: string;
  timestamp: string;
  level: string;
  request_id: string;
  message: string;
}

/** `2025-06-01T08:00:00Z log   req_… greeted Ada`, as `functions logs` prints a line. */
export function formatLogLine(line: LogLine): string {
  return `${line.timestamp} ${line.level.padEnd(5)} ${line.request_id} ${line.message}`;
}

/** A refused answer while following: said as `functions logs` says it, and the follow ends. */
export class LogsRefused extends Error {
  constructor(readonly answer: ApiAnswer) {
    super(describeFailure(answer));
  }
}

export interface FollowOptions {
  client: FunctionsClient;
  /** The function's name or id, URL-encoded. */
  ref: string;
  /** `level`, `request_id`: the list's own filters. */
  filters: URLSearchParams;
  print: (line: string) => void;
  /** Said once when the server cannot be reached, and again when it can. */
  warn: (line: string) => void;
  signal: AbortSignal;
  pollMs?: number;
}

/** How often `--follow` asks for new lines, like `webhooks listen`'s stream asks the store. */
const POLL_MS = 1_000;
/**
 * How far behind the newest line shown each poll looks again. A line carries the instant its
 * invocation ended, and invocations that end together commit in any order: one may appear after
 * a later one was shown (the events stream looks back for the same reason, api/routes/events.ts).
 * Ids already shown within the window are skipped, so nothing prints twice.
 */
const LOOKBACK_MS = 5_000;
/** Lines are rendered to the second: a line's instant may be this much after its timestamp. */
const TIMESTAMP_STEP_MS = 1_000;
const PAGE = 100;
/** `page * per_page` past this is refused (engines/paging.ts); a window that big is skipped past. */
const MAX_OFFSET_WINDOW = 10_000;

/**
 * `functions logs NAME --follow`: the newest 100 lines, then every new one as it is saved, until
 * `signal` aborts (Ctrl-C), as `wrangler tail` and `supabase functions logs` do. It asks the list
 * (`GET …/logs?sort=created_at&created_after=`) every second for what is newer than the newest
 * line shown, less `LOOKBACK_MS`, and prints what it has not printed (by id): a line is shown
 * once, and a line saved late is still shown. Throws `LogsRefused` on a refused answer.
 */
export async function followLogs(options: FollowOptions): Promise<void> {
  const { signal } = options;
  const shown = new Map<string, number>();
  let newest: number | undefined;
  const show = (lines: LogLine[]) => {
    for (const line of lines) {
      if (shown.has(line.id)) continue;
      const at = Date.parse(line.timestamp);
      shown.set(line.id, at);
      newest = Math.max(newest ?? at, at);
      options.print(formatLogLine(line));
    }
  };
  show((await logPage(options, { per_page: String(PAGE) })).reverse());
  let unreachable = false;
  while (!signal.aborted) {
    await sleep(options.pollMs ?? POLL_MS, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) break;
    const from = newest === undefined ? undefined : new Date(newest - LOOKBACK_MS).toISOString();
    try {
      for (let page = 1; page * PAGE <= MAX_OFFSET_WINDOW; page++) {
        const query = { sort: "created_at", per_page: String(PAGE), page: String(page) };
        const lines = await logPage(options, from ? { ...query, created_after: from } : query);
        show(lines);
        if (lines.length < PAGE) break;
      }
      if (unreachable) options.warn("(the server answers again)");
      unreachable = false;
    } catch (error) {
      if (error instanceof LogsRefused || signal.aborted) throw error;
      if (!unreachable)
        options.warn(`(the server does not answer: ${(error as Error).message}; still trying)`);
      unreachable = true;
    }
    // What fell out of the window cannot come back: forget it.
    const before = (newest ?? 0) - LOOKBACK_MS - TIMESTAMP_STEP_MS;
    for (const [id, at] of shown) if (at < before) shown.delete(id);
  }
}

async function logPage(options: FollowOptions, query: Record<string, string>): Promise<LogLine[]> {
  const params = new URLSearchParams(options.filters);
  for (const [name, value] of Object.entries(query)) params.set(name, value);
  const answer = await options.client.call("GET", `/v1/functions/${options.ref}/logs?${params.toString()}`, {
    signal: options.signal,
  });
  if (answer.status !== 200) throw new LogsRefused(answer);
  return (JSON.parse(answer.text) as { data: LogLine[] }).data;
}

/** What `POST /v1/functions/{id}/trigger` answers (runtime/function-schemas.ts, `FunctionTriggerRun`). */
interface TriggerRun {
  name: string;
  version: number;
  event: { id: string; type: string };
  subscribed: boolean;
  status: "succeeded" | "failed";
  request_id: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** The event's `data` from `--data FILE` (a JSON object such as `{ "object": { … } }`); throws, in one line. */
export function readEventData(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${path} is not JSON: ${(error as Error).message}`);
  }
}

/**
 * Prints a trigger's outcome: `succeeded welcome v3: contact.created evt_… → 200 in 14 ms`, then
 * how to read its lines; a failed run also as `error:` on stderr. Returns the exit code.
 */
export function printTriggerRun(text: string): number {
  const run = JSON.parse(text) as TriggerRun;
  const answer = run.status_code === null ? "no answer" : String(run.status_code);
  console.log(
    `${run.status} ${run.name} v${run.version}: ${run.event.type} ${run.event.id} → ${answer} in ${run.duration_ms} ms`,
  );
  console.log(`  logs: tessera functions logs ${run.name} --request-id ${run.request_id}`);
  if (!run.subscribed) {
    console.log(`  note: ${run.name} does not subscribe to ${run.event.type}: a real one would not run it`);
  }
  if (run.status === "succeeded") return 0;
  console.error(`error: the run failed: ${run.error ?? "no answer"}`);
  return 1;
}
