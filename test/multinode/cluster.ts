import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_SECRET } from "../helpers/app.ts";
import { startServerProcess, type ServerProcess } from "../helpers/process.ts";

/**
 * A Tessera cluster of real processes, as an operator runs one: `tessera serve --role api`
 * and `--role worker` nodes, each its own process and data dir, on one PostgreSQL database
 * and one Redis. Every node it started is killed by `destroy()`, whatever state it is in.
 */
export interface Cluster {
  start(role: "api" | "worker"): Promise<ServerProcess>;
  /** The last lines each node printed, to tell what went wrong when a test fails. */
  logs(): Promise<string>;
  destroy(): Promise<void>;
}

export function createCluster(env: Record<string, string>): Cluster {
  const started: Array<{ role: string; node: Promise<ServerProcess>; dataDir: string }> = [];
  return {
    start(role) {
      const dataDir = mkdtempSync(join(tmpdir(), `tessera-multinode-${role}-`));
      const node = startServerProcess({ TESSERA_SECRET: TEST_SECRET, TESSERA_DATA_DIR: dataDir, ...env }, [
        "--role",
        role,
      ]);
      started.push({ role, node, dataDir });
      return node;
    },
    async logs() {
      const tails = started.map(async ({ role, node }, index) => {
        const output = await node.then((running) => running.output()).catch((error: Error) => error.message);
        return `--- node ${index} (${role}):\n${output.slice(-3_000)}`;
      });
      return (await Promise.all(tails)).join("\n");
    },
    async destroy() {
      for (const { node, dataDir } of started.splice(0)) {
        await node.then((running) => running.stop("SIGKILL")).catch(() => undefined);
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

export interface Reply {
  status: number;
  headers: Headers;
  // Response bodies are whatever the route returns; tests read the fields they check.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** One request to a node, as a REST caller sends it. */
export async function call(
  node: { url: string },
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(node.url + path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? parseJson(text) : undefined };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * How long after now the first `check` that holds was made (asking again at once each time one
 * does not): a request sent that long after a change saw it, however long it then took to
 * answer on a loaded machine. `Infinity` when none holds within `limitMs`.
 */
export async function msUntil(check: () => Promise<boolean>, limitMs = 3_000): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    const sent = performance.now();
    if (await check()) return sent - started;
  }
  return Number.POSITIVE_INFINITY;
}

/** Runs `task` for each of `items`, `concurrency` at a time; resolves with the results in order. */
export async function inBatches<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return results;
}
