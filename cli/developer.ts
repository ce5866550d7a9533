import { parseArgs } from "node:util";
import { ConfigError, loadConfig, type Config } from "../core/index.ts";
import { functionsClient } from "./api-client.ts";

/**
 * The developer's commands (`functions …`, `webhooks listen`): HTTP clients of a Tessera server with
 * `--url`/TESSERA_URL and `--key`/TESSERA_API_KEY. `runCli` (index.ts, the server package) and
 * `runDeveloperCli` (the standalone `@tessera/cli` package, packages/cli/) share the parser, these
 * usage lines and `runDeveloperCommand`.
 */

/** Every flag of every command: one parser for both entries. */
export const CLI_OPTIONS = {
  role: { type: "string", default: "all" },
  plan: { type: "string", default: "free" },
  org: { type: "string" },
  kind: { type: "string" },
  engines: { type: "string" },
  access: { type: "string" },
  name: { type: "string" },
  email: { type: "string" },
  demo: { type: "boolean", default: false },
  size: { type: "string", default: "1" },
  help: { type: "boolean", short: "h", default: false },
  url: { type: "string" },
  key: { type: "string" },
  public: { type: "boolean", default: false },
  private: { type: "boolean", default: false },
  follow: { type: "boolean", short: "f", default: false },
  entrypoint: { type: "string" },
  version: { type: "string" },
  path: { type: "string", default: "" },
  method: { type: "string" },
  data: { type: "string" },
  header: { type: "string", multiple: true },
  "request-id": { type: "string" },
  level: { type: "string" },
  event: { type: "string", multiple: true },
  cron: { type: "string", multiple: true },
  timezone: { type: "string" },
  "no-triggers": { type: "boolean", default: false },
  status: { type: "string" },
  json: { type: "boolean", default: false },
  "forward-to": { type: "string" },
  events: { type: "string" },
  replay: { type: "string", multiple: true },
  count: { type: "string", default: "0" },
  "print-secret": { type: "boolean", default: false },
  dir: { type: "string" },
  port: { type: "string" },
  "env-file": { type: "string" },
  remote: { type: "boolean", default: false },
  local: { type: "boolean", default: false },
  "update-lock": { type: "boolean", default: false },
  out: { type: "string" },
  force: { type: "boolean", default: false },
  "dry-run": { type: "boolean", default: false },
} as const;

/** `tessera …` argv → flags and positionals; throws on an unknown flag (node:util `parseArgs`). */
export function parseCli(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, options: CLI_OPTIONS });
}

export type CliFlags = ReturnType<typeof parseCli>["values"];

/** The developer commands' lines of the usage text (index.ts puts the operator's above them). */
export const DEVELOPER_USAGE = `  functions new NAME [--dir DIR]   scaffold DIR/NAME: a typed handler, its deno test, deno.json
  functions serve DIR [--port N] [--env-file F] [--org ORG | --remote]
                   run a folder locally (default port 8000), reloading on save, against the local server's
                   "sandbox" organization (made and seeded once; --org another); --remote: the key's live data;
                   Deno.env from F, or DIR/.env when there is one
  functions deploy DIR [--name N] [--entrypoint FILE] [--public|--private]
                   [--event TYPE]... [--cron "EXPR"]... [--timezone TZ] [--no-triggers] [--update-lock]
                   npm: versions are resolved once into DIR/tessera.lock; --update-lock resolves them again
                   name, public, limits, events and cron come from DIR/deno.json's "tessera" section; flags win
  functions list
  functions get|delete NAME
  functions rollback NAME [--version N]
  functions invoke NAME [--path /sub/path] [--method M] [--data BODY] [--header "K: V"]...
  functions logs NAME [--request-id ID] [--level error,warn] [--follow]   --follow: new lines as they come, until ^C
  functions trigger NAME --event TYPE [--data FILE] [--local [--port N]]
                   run the deployed function now as its event trigger would (FILE: the event's data as JSON;
                   default a sample of TYPE); prints the outcome and the run's request id;
                   --local: send the same request to functions serve on this machine (port 8000 by default)
  functions runs NAME [--status failed] | functions runs retry NAME RUN_ID | functions runs start NAME [--cron EXPR]
  functions secrets list NAME
  functions secrets set NAME KEY=VALUE...
  functions secrets unset NAME KEY...

  webhooks listen --forward-to URL [--events TYPES] [--replay evt_…]... [--count N]
  webhooks listen --print-secret  the whsec_ secret listen signs with (the same on every run)
    (over HTTP: --url or TESSERA_URL, default the server on the data dir; --key or TESSERA_API_KEY)`;

/** The developer commands' environment variables, the end of both usage texts. */
export const DEVELOPER_ENVIRONMENT = `TESSERA_URL, TESSERA_API_KEY, TESSERA_JSR_URL (functions commands; jsr registry, default https://jsr.io),
TESSERA_NPM_REGISTRY (npm registry; default $npm_config_registry, else https://registry.npmjs.org/),
TESSERA_NPM_CACHE (unpacked npm packages; default ~/.cache/tessera/npm).`;

/** What the standalone package says to `--help`: the developer commands only. */
export const STANDALONE_USAGE = `usage: tessera <command>   (@tessera/cli: a developer's commands, over HTTP to a Tessera server)

${DEVELOPER_USAGE}

Environment: ${DEVELOPER_ENVIRONMENT}
TESSERA_DATA_DIR: a local server's data dir (default ./.tessera); functions serve runs in that server's
isolates, and --url defaults to it.`;

/** Commands of the server package; the standalone CLI names where to run them instead. */
const SERVER_COMMANDS = new Set(["serve", "migrate", "backup", "restore", "orgs", "keys", "seed", "users"]);

/**
 * Runs `functions …` or `webhooks …`; `undefined` when `command` is neither. `usage(message)` prints a
 * usage failure and returns 2: the server's CLI adds the whole usage text, the standalone one a hint.
 */
export async function runDeveloperCommand(
  positionals: string[],
  values: CliFlags,
  config: Config,
  env: Record<string, string | undefined>,
  usage: (message: string) => number,
): Promise<number | undefined> {
  const [command, sub] = positionals;
  if (command === "webhooks") {
    if (sub !== "listen") return usage("webhooks listen --forward-to URL [--events TYPES] [--replay evt_…]");
    try {
      return await listen(values, config, env, usage);
    } catch (error) {
      console.error(`error: ${(error as Error).message}`);
      return 1;
    }
  }
  // Each command loads what it uses and no more: a developer's commands are HTTP clients, and
  // loading the server, the engines or the bundler cost each ~0.2–0.7 s of a run.
  if (command === "functions") {
    try {
      const { functionsCommand } = await import("./functions-command.ts");
      return await functionsCommand(positionals.slice(1), values, config, env);
    } catch (error) {
      console.error(`error: ${(error as Error).message}`);
      return 1;
    }
  }
  return undefined;
}

/**
 * The standalone `tessera` of `@tessera/cli` → exit code (0 done, 1 refused, 2 usage). Every failure
 * is one line on stderr. `functions serve` runs Tessera's isolates, which this package does not
 * carry: it runs through the server on `TESSERA_DATA_DIR` (serve-through-server.ts).
 *
 * @example
 *   process.exitCode = await runDeveloperCli(["functions", "list"], process.env);
 */
export async function runDeveloperCli(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const hint = (message: string) => {
    console.error(`${message} (tessera --help lists the commands)`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseCli(argv);
  } catch (error) {
    return hint((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, sub] = positionals;
  if (values.help) {
    console.log(STANDALONE_USAGE);
    return 0;
  }
  if (!command) return hint("usage: tessera <command>");
  if (SERVER_COMMANDS.has(command)) {
    return hint(
      `tessera ${command} is a server command: run it where the Tessera server is installed (npm run tessera -- ${command} in a checkout)`,
    );
  }
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message.split("\n").join("; "));
    return 2;
  }
  if (command === "functions" && sub === "serve") {
    const { serveThroughLocalServer } = await import("./serve-through-server.ts");
    return serveThroughLocalServer(argv, config.dataDir, env);
  }
  const code = await runDeveloperCommand(positionals, values, config, env, hint);
  return code ?? hint(`unknown command: ${positionals.join(" ")}`);
}

/** `webhooks listen`: until ^C (or `--count` deliveries), with the functions commands' URL and key. */
async function listen(
  values: CliFlags,
  config: Config,
  env: Record<string, string | undefined>,
  usage: (message: string) => number,
): Promise<number> {
  const client = functionsClient({ url: values.url, key: values.key, config, env });
  if (!client.key) throw new Error("no API key: pass --key or set TESSERA_API_KEY");
  const count = Number(values.count);
  if (!Number.isInteger(count) || count < 0) return usage("--count takes a whole number (0: forever)");
  const { UsageError, webhooksListen } = await import("./webhooks-listen.ts");
  const stop = new AbortController();
  const abort = () => stop.abort();
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  try {
    return await webhooksListen({
      base: client.base,
      key: client.key,
      forwardTo: values["forward-to"],
      events: values.events,
      replay: values.replay ?? [],
      count,
      printSecret: values["print-secret"],
      print: (line) => console.log(line),
      signal: stop.signal,
    });
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message);
    throw error;
  } finally {
    process.off("SIGINT", abort);
    process.off("SIGTERM", abort);
  }
}
