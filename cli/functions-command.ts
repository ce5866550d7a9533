import { statSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { Config } from "../core/index.ts";
import { describeFailure, functionsClient, type ApiAnswer } from "./api-client.ts";
import type { RemoteContext } from "./functions-remote.ts";

export interface FunctionsFlags {
  url?: string | undefined;
  key?: string | undefined;
  name?: string | undefined;
  public?: boolean | undefined;
  /** `deploy`: needs a key to invoke, whatever deno.json's `tessera.public` says. */
  private?: boolean | undefined;
  entrypoint?: string | undefined;
  version?: string | undefined;
  path?: string | undefined;
  method?: string | undefined;
  data?: string | undefined;
  header?: string[] | undefined;
  "request-id"?: string | undefined;
  level?: string | undefined;
  event?: string[] | undefined;
  cron?: string[] | undefined;
  timezone?: string | undefined;
  "no-triggers"?: boolean | undefined;
  /** `logs`: keep printing new lines until Ctrl-C. */
  follow?: boolean | undefined;
  status?: string | undefined;
  /** Print the server's problem+json body on a failure instead of one `error:` line. */
  json?: boolean | undefined;
  /** `new`: the folder the function's folder is made in. */
  dir?: string | undefined;
  /** `serve`: the local port (default 8000). */
  port?: string | undefined;
  /** `serve`: the function's `Deno.env` (default `DIR/.env` when there is one). */
  "env-file"?: string | undefined;
  /** `serve`: the key's organization and its live data, instead of the local sandbox organization. */
  remote?: boolean | undefined;
  /** `serve`: the local organization to serve against (id or name; a new name is made and seeded). */
  org?: string | undefined;
  /** `trigger`: send the event to `functions serve` on this machine (`--port`, default 8000). */
  local?: boolean | undefined;
  /** `deploy`: resolve npm ranges against the registry again and rewrite `tessera.lock`. */
  "update-lock"?: boolean | undefined;
}

/** `tessera functions <sub> …` → exit code (0 done, 1 the server refused, 2 usage). */
export async function functionsCommand(
  args: string[],
  flags: FunctionsFlags,
  config: Config,
  env: Record<string, string | undefined>,
): Promise<number> {
  // `new` works offline, with no server and no key.
  if (args[0] === "new") return await newFunction(args[1], flags, env);
  const client = functionsClient({ url: flags.url, key: flags.key, config, env });
  const report = (answer: ApiAnswer) => reportAnswer(answer, flags.json === true);
  const [sub, target, ...rest] = args;
  const ref = target ? encodeURIComponent(target) : "";
  const need = (what: string) => {
    console.error(`usage: tessera functions ${what}`);
    return 2;
  };
  switch (sub) {
    case "deploy": {
      if (!target) {
        return need(
          'deploy DIR [--name N] [--entrypoint FILE] [--public|--private] [--event TYPE]... [--cron "EXPR"]... [--timezone TZ] [--no-triggers]',
        );
      }
      // npm runs scripts from the package's folder; INIT_CWD is where the user typed the command.
      const dir = resolve(env.INIT_CWD ?? process.cwd(), target);
      if (!isDirectory(dir)) {
        console.error(
          `error: no such folder: ${dir} (paths are read from the folder you ran the command in)`,
        );
        return 1;
      }
      const { deploySettings, readProjectSection } = await import("./functions-project.ts");
      // The folder's deno.json `tessera` section, then the flags over it (a bad section fails first).
      const settings = deploySettings(dir, readProjectSection(dir), flags);
      const files = await collectDeploy(dir, env, flags["update-lock"] === true);
      const answer = await client.json("POST", "/v1/functions", { ...settings, files });
      if (answer.status === 201) {
        const count = Object.keys(files).length;
        const fn = JSON.parse(answer.text) as {
          name: string;
          version: number;
          auth: string;
          invoke_path: string;
          bundle_bytes: number;
          triggers: Array<{ type: string; events?: string[]; schedule?: string; timezone?: string }>;
        };
        console.log(
          `deployed ${fn.name} v${fn.version} (${count} ${count === 1 ? "file" : "files"}, bundle ${fn.bundle_bytes} bytes)`,
        );
        console.log(
          `  ${new URL(fn.invoke_path, client.base).toString()}${fn.auth === "public" ? " (public)" : ""}`,
        );
        for (const trigger of fn.triggers) {
          console.log(
            trigger.type === "event"
              ? `  on ${trigger.events!.join(", ")}`
              : `  cron "${trigger.schedule}" (${trigger.timezone ?? "UTC"})`,
          );
        }
        return 0;
      }
      return report(answer);
    }
    case "list":
      return report(await client.json("GET", "/v1/functions?per_page=100&sort=name"));
    case "get":
      if (!target) return need("get NAME");
      return report(await client.json("GET", `/v1/functions/${ref}`));
    case "delete":
      if (!target) return need("delete NAME");
      return report(await client.json("DELETE", `/v1/functions/${ref}`));
    case "rollback":
      if (!target) return need("rollback NAME [--version N]");
      return report(
        await client.json(
          "POST",
          `/v1/functions/${ref}/rollback`,
          flags.version ? { version: Number(flags.version) } : {},
        ),
      );
    case "logs": {
      if (!target) return need("logs NAME [--request-id ID] [--level L] [--follow]");
      const filters = new URLSearchParams();
      if (flags["request-id"]) filters.set("request_id", flags["request-id"]);
      if (flags.level) filters.set("level", flags.level);
      const { followLogs, formatLogLine, LogsRefused } = await import("./functions-activity.ts");
      if (flags.follow) {
        const print = (line: string) => console.log(line);
        const warn = (line: string) => console.error(line);
        return await untilSignal((signal) =>
          followLogs({ client, ref, filters, print, warn, signal }).then(
            () => 0,
            (error: unknown) => {
              if (!(error instanceof LogsRefused)) throw error;
              return report(error.answer);
            },
          ),
        );
      }
      filters.set("per_page", "100");
      const answer = await client.json("GET", `/v1/functions/${ref}/logs?${filters.toString()}`);
      if (answer.status !== 200) return report(answer);
      const page = JSON.parse(answer.text) as { data: Parameters<typeof formatLogLine>[0][] };
      for (const line of page.data.reverse()) console.log(formatLogLine(line));
      return 0;
    }
    case "trigger": {
      const events = flags.event ?? [];
      if (!target || events.length !== 1 || events[0]!.includes(","))
        return need("trigger NAME --event TYPE [--data FILE] [--local [--port N]]  (one event type)");
      const { printTriggerRun, readEventData } = await import("./functions-activity.ts");
      // A file that cannot be read or is not JSON throws: `error: …`, exit 1 (index.ts).
      const file = flags.data && resolve(env.INIT_CWD ?? process.cwd(), flags.data);
      const data = file ? readEventData(file) : undefined;
      if (flags.local) {
        const { catalogKey, triggerLocally } = await import("./functions-trigger-local.ts");
        const key = catalogKey(client.key, config.dataDir, client.base);
        const reader = functionsClient({ url: flags.url, key, config, env });
        return await triggerLocally({
          name: target,
          eventType: events[0]!.trim(),
          data,
          target: `http://127.0.0.1:${flags.port ?? "8000"}/`,
          catalog: () => reader.json("GET", "/v1/event_types"),
          print: (line) => console.log(line),
        });
      }
      const body = { event_type: events[0]!.trim(), ...(data !== undefined ? { data } : {}) };
      const answer = await client.json("POST", `/v1/functions/${ref}/trigger`, body);
      if (answer.status !== 200) return report(answer);
      if (flags.json) {
        console.log(pretty(answer.text));
        return 0;
      }
      return printTriggerRun(answer.text);
    }
    case "runs": {
      if (target === "retry" && rest[0] && rest[1]) {
        const path = `/v1/functions/${encodeURIComponent(rest[0])}/runs/${encodeURIComponent(rest[1])}/retry`;
        return report(await client.json("POST", path));
      }
      if (target === "start" && rest[0]) {
        // A cron run now; --cron names the schedule when the function has several.
        const schedule = flags.cron?.[0];
        const path = `/v1/functions/${encodeURIComponent(rest[0])}/runs`;
        return report(await client.json("POST", path, schedule ? { schedule } : {}));
      }
      if (!target)
        return need('runs NAME [--status S] | runs retry NAME RUN_ID | runs start NAME [--cron "EXPR"]');
      const query = new URLSearchParams({ per_page: "100" });
      if (flags.status) query.set("status", flags.status);
      const answer = await client.json("GET", `/v1/functions/${ref}/runs?${query.toString()}`);
      if (answer.status !== 200) return report(answer);
      const page = JSON.parse(answer.text) as {
        data: Array<{
          id: string;
          created_at: string;
          trigger: string;
          event_type: string | null;
          schedule: string | null;
          status: string;
          attempts: number;
          last_error: string | null;
        }>;
      };
      for (const run of page.data.reverse()) {
        const cause = run.trigger === "event" ? run.event_type : `cron ${run.schedule}`;
        const error = run.last_error ? ` ${run.last_error}` : "";
        console.log(`${run.created_at} ${run.id} ${run.status.padEnd(9)} ×${run.attempts} ${cause}${error}`);
      }
      return 0;
    }
    case "invoke": {
      if (!target) return need("invoke NAME [--path P] [--method M] [--data BODY] [--header 'K: V']");
      const headers: Record<string, string> = {};
      for (const header of flags.header ?? []) {
        const at = header.indexOf(":");
        if (at < 1) return need(`invoke: --header takes "Name: value", not '${header}'`);
        headers[header.slice(0, at).trim()] = header.slice(at + 1).trim();
      }
      const suffix = flags.path ? `/${flags.path.replace(/^\/+/, "")}` : "";
      const method = flags.method ?? (flags.data !== undefined ? "POST" : "GET");
      const answer = await client.call(method, `/v1/functions/${ref}/invoke${suffix}`, {
        headers,
        ...(flags.data !== undefined ? { body: flags.data } : {}),
      });
      process.stdout.write(answer.text.endsWith("\n") || !answer.text ? answer.text : `${answer.text}\n`);
      if (answer.status >= 400) console.error(`error: the function answered ${answer.status}`);
      return answer.status < 400 ? 0 : 1;
    }
    case "secrets": {
      const [name, ...pairs] = rest;
      if (target === "list" && name)
        return report(await client.json("GET", `/v1/functions/${encodeURIComponent(name)}/secrets`));
      if ((target === "set" || target === "unset") && name && pairs.length > 0) {
        const updates: Record<string, string | null> = {};
        for (const pair of pairs) {
          const at = pair.indexOf("=");
          if (target === "set" && at < 1) return need(`secrets set: '${pair}' is not KEY=VALUE`);
          updates[target === "set" ? pair.slice(0, at) : pair] = target === "set" ? pair.slice(at + 1) : null;
        }
        return report(await client.json("PUT", `/v1/functions/${encodeURIComponent(name)}/secrets`, updates));
      }
      return need("secrets list NAME | secrets set NAME KEY=VALUE... | secrets unset NAME KEY...");
    }
    case "serve": {
      if (!target) return need("serve DIR [--port N] [--org ORG | --remote] [--env-file F]");
      const port = Number(flags.port ?? 8000);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) return need("serve DIR --port takes 0–65535");
      const dir = resolve(env.INIT_CWD ?? process.cwd(), target);
      if (!isDirectory(dir)) {
        console.error(`error: no such folder: ${dir}`);
        return 1;
      }
      const envFile = flags["env-file"] && resolve(env.INIT_CWD ?? process.cwd(), flags["env-file"]);
      const { connectServeTarget } = await import("./functions-remote.ts");
      const where = await connectServeTarget({
        base: client.base,
        key: client.key,
        remote: flags.remote === true,
        org: flags.org,
        config,
      });
      if ("refused" in where) {
        console.error(`error: ${where.refused}`);
        return 2;
      }
      console.log(where.says);
      return serveUntilSignal(dir, port, client.base, where.remote, config, env, envFile);
    }
    default:
      return need("deploy|list|get|delete|rollback|invoke|trigger|logs|runs|secrets|new|serve …");
  }
}

/**
 * What `functions deploy` uploads. The bundler (esbuild-wasm), the function runtime and the sandbox
 * are loaded by the subcommands that use them (deploy, serve, new), not by every command: most are
 * one HTTP call, and loading them cost each ~0.7 s of a CLI run's ~1.5 s.
 */
async function collectDeploy(dir: string, env: Record<string, string | undefined>, updateLock: boolean) {
  const [{ collectUpload }, { stopCompiler }] = await Promise.all([
    import("./functions.ts"),
    import("../runtime/index.ts"),
  ]);
  return await collectUpload(dir, { jsrUrl: env.TESSERA_JSR_URL, env, updateLock }).finally(() =>
    stopCompiler(),
  );
}

/** `functions new NAME [--dir DIR]`: scaffolds `DIR/NAME`, prints what it made and what to run next. */
async function newFunction(
  name: string | undefined,
  flags: FunctionsFlags,
  env: Record<string, string | undefined>,
) {
  if (!name) {
    console.error("usage: tessera functions new NAME [--dir DIR]");
    return 2;
  }
  const cwd = env.INIT_CWD ?? process.cwd();
  const { scaffoldFunction, ScaffoldError } = await import("./functions-new.ts");
  let made;
  try {
    made = scaffoldFunction({ name, parent: resolve(cwd, flags.dir ?? ".") });
  } catch (error) {
    if (!(error instanceof ScaffoldError)) throw error;
    console.error(`error: ${error.message}`);
    return error.exitCode;
  }
  const shown = relative(cwd, made.folder) || ".";
  console.log(`created ${shown}/`);
  const width = Math.max(...made.files.map((file) => file.path.length));
  for (const file of made.files) console.log(`  ${file.path.padEnd(width)}  ${file.what}`);
  const next = [
    [
      `tessera functions serve ${shown}`,
      "runs it on http://127.0.0.1:8000 against the server, reloading on save",
    ],
    [`(cd ${shown} && deno test)`, "its test, with a fake ctx"],
    [`tessera functions deploy ${shown}`, "a new version on the server"],
  ];
  const column = Math.max(...next.map(([command]) => command!.length));
  console.log("next:");
  for (const [command, what] of next) console.log(`  ${command!.padEnd(column)}  ${what}`);
  return 0;
}

/** `functions serve`: until SIGINT or SIGTERM. */
async function serveUntilSignal(
  dir: string,
  port: number,
  base: string,
  remote: RemoteContext,
  config: Config,
  env: Record<string, string | undefined>,
  envFile: string | undefined,
): Promise<number> {
  const { serveFunction } = await import("./functions-serve.ts");
  const served = await serveFunction({
    dir,
    hostname: config.host,
    port,
    remote,
    config,
    env,
    envFile,
    print: (line) => console.log(line),
  });
  const who = String(remote.user.key_id ?? remote.user.type);
  console.log(`listening on ${served.url} (ctx: ${base} as ${who}; reloads on save; ^C stops)`);
  await new Promise<void>((done) => {
    process.once("SIGINT", () => done());
    process.once("SIGTERM", () => done());
  });
  await served.dispose();
  return 0;
}

/**
 * Runs `work` until it ends or SIGINT/SIGTERM aborts its signal (Ctrl-C ends a follow as done: 0).
 * Returns `work`'s exit code, or 0 when the signal ended it.
 */
async function untilSignal(work: (signal: AbortSignal) => Promise<number>): Promise<number> {
  const stop = new AbortController();
  const abort = () => stop.abort();
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  try {
    return await work(stop.signal);
  } catch (error) {
    if (stop.signal.aborted) return 0;
    throw error;
  } finally {
    process.off("SIGINT", abort);
    process.off("SIGTERM", abort);
  }
}

/**
 * Prints an answer: a success's JSON on stdout; a failure as one line on stderr,
 * `error: <title>: <detail> (<request id>)`, or with `--json` the problem body itself.
 */
function reportAnswer(answer: ApiAnswer, json: boolean): number {
  if (answer.status < 400) {
    console.log(answer.text ? pretty(answer.text) : `status ${answer.status}`);
    return 0;
  }
  console.error(json ? pretty(answer.text) : `error: ${describeFailure(answer)}`);
  return 1;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
