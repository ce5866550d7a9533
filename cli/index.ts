import { ConfigError, createLogger, loadConfig, PLANS, type Config } from "../core/index.ts";
import type { Role } from "../engines/index.ts";
import type { Role as ServerRole, RunningServer } from "../main.ts";
import { DEVELOPER_ENVIRONMENT, DEVELOPER_USAGE, parseCli, runDeveloperCommand } from "./developer.ts";

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

${DEVELOPER_USAGE}

Environment: PORT, HOST, TESSERA_DATA_DIR, DATABASE_URL, REDIS_URL, TESSERA_SECRET, LOG_LEVEL,
${DEVELOPER_ENVIRONMENT}`;

export async function runCli(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const { values, positionals } = parseCli(argv);
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
  const developer = await runDeveloperCommand(positionals, values, config, env, usage);
  if (developer !== undefined) return developer;

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
