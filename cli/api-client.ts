import type { Config } from "../core/index.ts";
import { openDataDir } from "../store/index.ts";

/**
 * The CLI's HTTP client: a developer's commands (`tessera functions …`, `tessera webhooks listen`)
 * go over HTTP to a Tessera server with an API key, like `supabase functions` or `wrangler`. The
 * server is `--url` or TESSERA_URL, else the one serving the embedded data dir, else
 * http://127.0.0.1:8787; the key is `--key` or TESSERA_API_KEY.
 */

export interface FunctionsClientOptions {
  url?: string | undefined;
  key?: string | undefined;
  config: Config;
  env: Record<string, string | undefined>;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** A failed answer in one line: the problem's title, detail and request id, or its status. */
export function describeFailure(answer: ApiAnswer): string {
  try {
    const problem = JSON.parse(answer.text) as { title?: unknown; detail?: unknown; request_id?: unknown };
    if (typeof problem.title === "string" && typeof problem.detail === "string") {
      const id = typeof problem.request_id === "string" ? ` (${problem.request_id})` : "";
      return `${problem.title}: ${problem.detail}${id}`;
    }
  } catch {
    // Not a problem body: say what came back.
  }
  return `the server answered ${answer.status}${answer.text ? `: ${answer.text.slice(0, 200)}` : ""}`;
}

export function functionsClient(options: FunctionsClientOptions) {
  const base =
    options.url ??
    options.env.TESSERA_URL ??
    (!options.config.databaseUrl ? openDataDir(options.config.dataDir).runningServer()?.url : undefined) ??
    `http://127.0.0.1:${options.config.port}`;
  const key = options.key ?? options.env.TESSERA_API_KEY;
  const call = async (
    method: string,
    path: string,
    init: { body?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ) => {
    if (!key) throw new Error("no API key: pass --key or set TESSERA_API_KEY");
    const response = await fetch(new URL(path, base), {
      method,
      headers: { authorization: `Bearer ${key}`, ...init.headers },
      ...(init.body !== undefined ? { body: init.body } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const json = (method: string, path: string, body?: unknown) =>
    call(
      method,
      path,
      body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { "content-type": "application/json" } },
    );
  return { base, key, call, json };
}

export type FunctionsClient = ReturnType<typeof functionsClient>;
