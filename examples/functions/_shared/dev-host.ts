/**
 * A development host for running a Tessera function under plain Deno, as
 * `wrangler dev` or `supabase functions serve` do for their platforms:
 *
 *   cd examples/functions/overdue-reminder
 *   deno run --allow-net --allow-env --allow-read ../_shared/dev-host.ts .
 *
 * (`deno task example:overdue-reminder` from the repository's root.)
 * It gives the function what Tessera would: a `ctx` (also as the global `Tessera`)
 * (`createTestContext` of `tessera/testing`) whose `platform.fetch` answers from
 * the folder's `dev-fixtures.json`, whose `engines` keep state in memory, and it serves every handler style: `export
 * default function (req, ctx)`, `export default { fetch(req, env, ctx) }`, or a
 * module that calls `Deno.serve` itself. The function's code is the same under
 * this host and under Tessera; only the context behind it differs. The address is
 * Deno's `DENO_SERVE_ADDRESS` (e.g. `tcp:127.0.0.1:8000`), default port 8000.
 */
import type { Context } from "tessera/types";
import { createTestContext } from "tessera/testing";

type Handler = (req: Request, ...rest: unknown[]) => Response | Promise<Response>;
type Fixtures = Record<string, Array<Record<string, unknown>>>;

const ENTRY_CANDIDATES = ["index.ts", "index.tsx", "index.js", "main.ts", "mod.ts"];

const dir = Deno.args[0];
if (!dir) {
  console.error("usage: dev-host.ts FUNCTION_DIR");
  Deno.exit(2);
}
const base = new URL(dir.replace(/\/?$/, "/"), `file://${Deno.cwd()}/`);

const fixtures = await readFixtures(base);
globalThis.Tessera = createTestContext({ platform: (request) => fakePlatform(fixtures, request) });
const module = (await import(new URL(await findEntry(base), base).href)) as { default?: unknown };
const handler = toHandler(module.default, globalThis.Tessera);
if (handler) Deno.serve(handler);

/** The entry, as Tessera finds it: deno.json's `main`, else index.ts and friends. */
async function findEntry(folder: URL): Promise<string> {
  try {
    const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", folder))) as { main?: string };
    if (config.main) return config.main;
  } catch {
    // No deno.json: the conventional names below.
  }
  for (const name of ENTRY_CANDIDATES) {
    try {
      await Deno.stat(new URL(name, folder));
      return name;
    } catch {
      continue;
    }
  }
  throw new Error(`no entrypoint in ${folder.pathname}`);
}

/** A default export becomes a handler; none means the module served itself with Deno.serve. */
function toHandler(exported: unknown, ctx: Context): Handler | undefined {
  if (typeof exported === "function") return (req) => (exported as Handler)(req, ctx);
  const fetch = (exported as { fetch?: unknown } | undefined)?.fetch;
  if (typeof fetch === "function") {
    return (req) => (fetch as Handler).call(exported, req, Deno.env.toObject(), ctx);
  }
  return undefined;
}

async function readFixtures(folder: URL): Promise<Fixtures> {
  try {
    return JSON.parse(await Deno.readTextFile(new URL("dev-fixtures.json", folder))) as Fixtures;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return {};
    throw error;
  }
}

/**
 * `GET /v1/<resource>` lists from the fixtures, in Tessera's list shape, filtered
 * by `status` (one value or a comma list); anything else is a 404 problem.
 */
function fakePlatform(fixtures: Fixtures, request: Request): Response {
  const url = new URL(request.url);
  const resource = /^\/v1\/([a-z_]+)$/.exec(url.pathname)?.[1];
  const rows = resource ? fixtures[resource] : undefined;
  if (request.method !== "GET" || !rows) {
    const problem = {
      type: "about:blank",
      title: "Not Found",
      status: 404,
      detail: `no fixture for ${url.pathname}${url.search}`,
    };
    return Response.json(problem, { status: 404, headers: { "content-type": "application/problem+json" } });
  }
  const statuses = url.searchParams.get("status")?.split(",");
  const data = statuses ? rows.filter((row) => statuses.includes(String(row.status))) : rows;
  const perPage = Number(url.searchParams.get("per_page") ?? 25);
  return Response.json({
    data: data.slice(0, perPage),
    meta: { total: data.length, page: 1, per_page: perPage },
  });
}
