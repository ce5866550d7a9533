import { join } from "node:path";
import {
  FunctionTriggerSchema,
  madeUpEvent,
  newRunId,
  sampleEventDataFromSchema,
  triggerHeaders,
} from "../runtime/index.ts";
import { openDataDir } from "../store/index.ts";
import { describeFailure, type ApiAnswer } from "./api-client.ts";
import { readSandboxKeys, SANDBOX_KEYS_FILE } from "./sandbox-keys.ts";

/**
 * `tessera functions trigger NAME --event TYPE --local [--port N]`: the request a deployed version
 * gets from its event trigger (trigger-request.ts: a POST of the event with the `tessera-trigger`
 * headers), sent to the folder `functions serve` runs on this machine, so an event handler is tried
 * before it is deployed, as `stripe trigger` or `supabase functions serve` with a hand-made body
 * would, without writing the header by hand. The event is made up and never written: no webhook,
 * no other function sees it. The server is asked only for the catalog (`GET /v1/event_types`): the
 * type must exist, and without `--data` its sample is the data.
 */
export interface LocalTriggerOptions {
  name: string;
  eventType: string;
  /** `--data FILE`'s JSON: the event's `data`. */
  data: unknown;
  /** Where `functions serve` listens. */
  target: string;
  /** The catalog's answer (`GET /v1/event_types`), read with whatever key the caller has. */
  catalog: () => Promise<ApiAnswer>;
  print: (line: string) => void;
}

interface CatalogEntry {
  type: string;
  schema: unknown;
}

/** → exit code: 0 the function answered 2xx, 1 it did not (or nothing listens there). */
export async function triggerLocally(options: LocalTriggerOptions): Promise<number> {
  const answer = await options.catalog();
  if (answer.status !== 200) throw new Error(`cannot read the event types: ${describeFailure(answer)}`);
  const catalog = (JSON.parse(answer.text) as { data: CatalogEntry[] }).data;
  const entry = catalog.find((item) => item.type === options.eventType);
  if (!entry) throw new Error(`unknown event type '${options.eventType}'; see GET /v1/event_types`);
  // `--data` is held to what the server's trigger route takes: `{object, previous_attributes}`.
  const given = FunctionTriggerSchema.safeParse({ event_type: entry.type, data: options.data });
  if (!given.success) {
    const issue = given.error.issues[0]!;
    throw new Error(
      `--data is not an event's data ({"object": {…}}): ${issue.path.join(".") || "data"} ${issue.message}`,
    );
  }
  const now = new Date();
  const data = given.data.data ?? sampleEventDataFromSchema(entry.schema, now);
  const event = madeUpEvent(entry.type, data, now);
  const started = performance.now();
  let response: Response;
  try {
    response = await fetch(options.target, {
      method: "POST",
      headers: triggerHeaders({ trigger: "event", runId: newRunId(), attempt: 1, eventId: event.id }),
      body: JSON.stringify(event),
    });
    await response.arrayBuffer();
  } catch (error) {
    const reason = (error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw new Error(
      `nothing answered at ${options.target} (${reason}): run tessera functions serve DIR there first`,
    );
  }
  const ms = Math.round(performance.now() - started);
  const ok = response.status >= 200 && response.status < 300;
  const requestId = response.headers.get("x-request-id");
  options.print(
    `${ok ? "succeeded" : "failed"} ${options.name} (local, ${options.target}): ${event.type} ${event.id} → ${response.status} in ${ms} ms`,
  );
  if (requestId) options.print(`  request id: ${requestId} (functions serve prints its lines)`);
  if (ok) return 0;
  console.error(`error: the run failed: the function answered ${response.status}`);
  return 1;
}

/**
 * A key to read the catalog with: the caller's, else one `functions serve` keeps for the sandbox,
 * and that one only for the server it was minted by (the one running on `dataDir`): a sandbox key is
 * never sent to another server.
 */
export function catalogKey(key: string | undefined, dataDir: string, base: string): string | undefined {
  if (key) return key;
  const running = openDataDir(dataDir).runningServer();
  if (!running || new URL(running.url).origin !== new URL(base).origin) return undefined;
  return Object.values(readSandboxKeys(join(dataDir, SANDBOX_KEYS_FILE)))[0];
}
