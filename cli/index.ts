import { parseArgs } from "node:util";
import { ConfigError, createLogger, loadConfig, PLANS, type Config } from "../core/index.ts";
import type { Role } from "../engines/index.ts";
import type { Role as ServerRole, RunningServer } from "../main.ts";
import { functionsClient } from "./api-client.ts";

const USAGE = `usage: tessera <command>

  serve [--role all|api|worker]   start the service (default role: all)
  migrate [--dry-run]             apply pending migrations (--dry-run: list them, apply nothing)
  backup [--out FILE]             an online backup of the whole store to one archive, while the server
                                  runs (default: TESSERA_BACKUP_DIR, else $TESSERA_DATA_DIR/backups)
  restore FILE [--force]          restore an archive into an empty store (--force: empty it first);
                                  DATABASE_URL=… restores into PostgreSQL: the move off the embedded store
  orgs create NAME [--plan free|pro|enterprise]
  orgs list
  keys create --org ORG --kind full_access|read_only|engine [--engines finance,growth] [--access read|write] [--name N]
  keys list --org ORG
  keys revoke KEY_ID --org ORG
  seed --demo [--org ORG] [--size N]
  users invite --org ORG --email EMAIL --role owner|admin|developer|viewer   prints a one-time invitation link (7 days)
  users reset-password --email EMAIL                                          prints a one-time reset link (1 hour)

  functions new NAME [--dir DIR]   scaffold DIR/NAME: a typed handler, its deno test, deno.json
  functions serve DIR [--port N] [--env-file F]
                   run a folder locally (default port 8000) against the server's data, reloading on save;
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
  functions trigger NAME --event TYPE [--data FILE]
                   run the deployed function now as its event trigger would (FILE: the event's data as JSON;
                   default a sample of TYPE); prints the outcome and the run's request id
  functions runs NAME [--status failed] | functions runs retry NAME RUN_ID | functions runs start NAME [--cron EXPR]
  functions secrets list NAME
  functions secrets set NAME KEY=VALUE...
  functions secrets unset NAME KEY...

  webhooks listen --forward-to URL [--events TYPES] [--replay evt_…]... [--count N]
  webhooks listen --print-secret  the whsec_ secret listen signs with (the same on every run)
    (over HTTP: --url or TESSERA_URL, default the server on the data dir; --key or TESSERA_API_KEY)

Environment: PORT, HOST, TESSERA_DATA_DIR, DATABASE_URL, REDIS_URL, TESSERA_SECRET, LOG_LEVEL,
TESSERA_URL, TESSERA_API_KEY, TESSERA_JSR_URL (functions commands; jsr registry, default https://jsr.io),
TESSERA_NPM_REGISTRY (npm registry; default $npm_config_registry, else https://registry.npmjs.org/),
TESSERA_NPM_CACHE (unpacked npm packages; default ~/.cache/tessera/npm).`;

export async function runCli(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
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
      "update-lock": { type: "boolean", default: false },
      out: { type: "string" },
      force: { type: "boolean", default: false },
      "dry-run": { type: "boolean", default: false },
    },
  });
  const [command, sub, arg] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command || values.help ? 0 : 2;
  }
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }

  if (command === "serve") return serveUntilSignal(config, values.role);
  if (command === "webhooks") {
    if (sub !== "listen") return usage("webhooks listen --forward-to URL [--events TYPES] [--replay evt_…]");
    try {
      return await listen(values, config, env);
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

  if (command === "backup" || command === "restore" || (command === "migrate" && values["dry-run"])) {
    if (command === "restore" && !sub) return usage("restore FILE [--force]");
    try {
      const { backupCommand, pendingCommand, restoreCommand } = await import("./store-commands.ts");
      if (command === "backup") console.log(await backupCommand(config, values.out));
      else if (command === "restore") console.log(await restoreCommand(config, sub!, values.force));
      else console.log(await pendingCommand(config));
      return 0;
    } catch (error) {
      console.error(`error: ${(error as Error).message}`);
      return 1;
    }
  }

  const [{ openOperator }, { ENGINES, KEY_KINDS, ROLES }] = await Promise.all([
    import("./operator.ts"),
    import("../engines/index.ts"),
  ]);
  const operator = await openOperator(config, { migrate: command !== "migrate" });
  try {
    switch (`${command} ${sub ?? ""}`.trim()) {
      case "migrate":
        return print(await operator.migrate());
      case "orgs create":
        if (!sub || !arg) return usage("orgs create NAME");
        if (!(PLANS as readonly string[]).includes(values.plan))
          return usage(`--plan must be one of ${PLANS.join(", ")}`);
        return print(await operator.createOrg({ name: arg, plan: values.plan as (typeof PLANS)[number] }));
      case "orgs list":
        return print(await operator.listOrgs());
      case "keys create": {
        if (!values.org || !values.kind) return usage("keys create --org ORG --kind KIND");
        if (!(KEY_KINDS as readonly string[]).includes(values.kind))
          return usage(`--kind must be one of ${KEY_KINDS.join(", ")}`);
        const engines = values.engines?.split(",").map((e) => e.trim());
        if (engines?.some((e) => !(ENGINES as readonly string[]).includes(e)))
          return usage(`--engines takes ${ENGINES.join(",")}`);
        const key = await operator.createKey(values.org, {
          kind: values.kind as (typeof KEY_KINDS)[number],
          engines: engines as (typeof ENGINES)[number][] | undefined,
          access: values.access as "read" | "write" | undefined,
          name: values.name,
        });
        console.log(`created ${key.id} (${key.scopes.join(" ")}); the secret is shown once:`);
        console.log(key.secret);
        return 0;
      }
      case "keys list":
        if (!values.org) return usage("keys list --org ORG");
        return print(await operator.listKeys(values.org));
      case "keys revoke":
        if (!values.org || !arg) return usage("keys revoke KEY_ID --org ORG");
        return print(await operator.revokeKey(values.org, arg));
      case "users invite": {
        if (!values.org || !values.email || !values.role)
          return usage("users invite --org ORG --email EMAIL --role ROLE");
        if (!(ROLES as readonly string[]).includes(values.role))
          return usage(`--role must be one of ${ROLES.join(", ")}`);
        const { token } = await operator.inviteUser(values.org, {
          email: values.email,
          role: values.role as Role,
        });
        console.log(`invitation for ${values.email} (${values.role}), valid 7 days, once:`);
        console.log(`${operator.dashboardUrl()}/invite/${token}`);
        return 0;
      }
      case "users reset-password": {
        if (!values.email) return usage("users reset-password --email EMAIL");
        const { token } = await operator.resetPassword(values.email);
        console.log(`password reset for ${values.email}, valid 1 hour, once:`);
        console.log(`${operator.dashboardUrl()}/reset/${token}`);
        return 0;
      }
      case "seed":
        if (!values.demo) return usage("seed --demo [--org ORG]");
        return print(await operator.seedDemo(values.org ?? "default", Number(values.size)));
      default:
        return usage(`unknown command: ${positionals.join(" ")}`);
    }
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    return 1;
  } finally {
    await operator.dispose();
  }
}

/** `webhooks listen`: until ^C (or `--count` deliveries), with the functions commands' URL and key. */
async function listen(
  values: {
    url?: string;
    key?: string;
    "forward-to"?: string;
    events?: string;
    replay?: string[];
    count: string;
    "print-secret": boolean;
  },
  config: Config,
  env: Record<string, string | undefined>,
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

function print(value: unknown): number {
  console.log(JSON.stringify(value, null, 2));
  return 0;
}

function usage(message: string): number {
  console.error(`${message}\n\n${USAGE}`);
  return 2;
}

async function serveUntilSignal(config: Config, role: string): Promise<number> {
  if (!["all", "api", "worker"].includes(role)) return usage("--role must be all, api or worker");
  const log = createLogger({ level: config.logLevel, base: { role } });
  let server: RunningServer;
  try {
    const { startServer } = await import("../main.ts");
    server = await startServer({ config, log, role: role as ServerRole });
  } catch (error) {
    // Startup faults (port taken, data dir in use, store unreachable) are the operator's to fix: say so plainly.
    log.error("failed to start", { error });
    console.error(`error: ${(error as Error).message}`);
    return 1;
  }
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info("draining", { signal });
      resolve();
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
  // A part that fails to stop is logged by name (main.ts) and fails the command.
  const stopped = await server.dispose().then(
    () => true,
    () => false,
  );
  log.info(stopped ? "stopped" : "stopped; some parts failed to");
  return stopped ? 0 : 1;
}
