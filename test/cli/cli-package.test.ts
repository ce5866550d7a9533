import { execFile, spawn, type ChildProcess } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { denoEnv, denoMissing, runDeno } from "../helpers/deno.ts";
import { startServerProcess, type ServerProcess } from "../helpers/process.ts";
import { startFakeNpmRegistry, type FakeNpmRegistry } from "./fake-npm-registry.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** This process's environment without the npm run that started vitest or any TESSERA_ setting. */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^npm_/i.test(name) && name !== "INIT_CWD" && !name.startsWith("TESSERA_"))
      env[name] = value;
  }
  return { ...env, ...extra };
}

/** A command as a shell runs it, in `cwd`, with an environment free of the npm run that started vitest. */
function run(command: string, args: string[], cwd: string, extra: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: cleanEnv(extra) }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * `@tessera/cli` as a function author gets it: packed from the checkout (its prepack builds the
 * bundle), installed with `@tessera/sdk` into an empty project outside the checkout, and run with
 * `npx tessera` against a real server process.
 */
// Two packs, an install, a server and nine npx runs: 40 s measured on a quiet 2-core machine, 130 s
// on a busy one (load average ~18), hence the timeouts.
describe("the @tessera/cli package, installed in a project of its own", { timeout: 240_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "tessera-cli-package-"));
  const tarballs = join(root, "tarballs");
  const project = join(root, "project");
  const dataDir = join(root, "data");
  let server: ServerProcess;
  let key = "";
  const tessera = (...args: string[]) => run("npx", ["--no-install", "tessera", ...args], project);

  beforeAll(async () => {
    mkdirSync(tarballs);
    mkdirSync(project);
    mkdirSync(dataDir);
    const pack = (dir: string) => run("npm", ["pack", "--pack-destination", tarballs], join(ROOT, dir));
    // One at a time: on a busy 2-core machine, packing beside a server start delays it past its 30 s.
    server = await startServerProcess({ TESSERA_DATA_DIR: dataDir });
    key = /sk_live_[0-9A-Za-z]+/.exec(server.output())?.[0] ?? "";
    const [cli, sdk] = await Promise.all([
      pack("packages/cli"),
      pack("sdk"),
      run("npm", ["init", "-y"], project),
    ]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(sdk.code, sdk.stderr).toBe(0);
    const packed = readdirSync(tarballs).map((file) => join(tarballs, file));
    expect(packed).toHaveLength(2);
    // esbuild-wasm, the one dependency from the registry, comes from npm's cache when it has it.
    const install = await run(
      "npm",
      ["install", "--save-dev", "--prefer-offline", "--no-audit", "--no-fund", ...packed],
      project,
    );
    expect(install.code, install.stderr).toBe(0);
  }, 200_000);
  afterAll(async () => {
    await server?.stop("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  it("is the developer's commands only, and nothing of the server", async () => {
    const help = await tessera("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: tessera <command>/);
    expect(help.stdout).toContain("functions deploy DIR");
    expect(help.stdout).not.toMatch(/^ {2}(serve|migrate|orgs|keys) /m);
    const installed = readdirSync(join(project, "node_modules"))
      .filter((name) => !name.startsWith("."))
      .sort();
    expect(installed).toEqual(["@tessera", "esbuild-wasm"]);

    const unknown = await tessera("frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split("\n")).toHaveLength(1);

    // No server runs on the project's ./.tessera: serve says where it would run, in one line.
    const serve = await tessera("functions", "serve", ".");
    expect(serve.code).toBe(1);
    expect(serve.stderr.trim().split("\n")).toHaveLength(1);
    expect(serve.stderr).toMatch(
      /^error: tessera functions serve runs a folder in a local Tessera server's isolates, and none runs on the data dir .*\.tessera/,
    );
  });

  it("scaffolds a function, deploys it, lists it and invokes it against a server", async () => {
    const made = await tessera("functions", "new", "hello");
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    for (const file of ["index.ts", "index.test.ts", "deno.json"])
      expect(existsSync(join(project, "hello", file))).toBe(true);
    // The installed @tessera/sdk is what the folder's deno.json imports.
    expect(made.stdout).toContain("from npm:@tessera/sdk;");

    const auth = ["--url", server.url, "--key", key];
    const deployed = await tessera("functions", "deploy", "hello", ...auth);
    expect(deployed.stderr).toBe("");
    expect(deployed.code).toBe(0);
    expect(deployed.stdout).toMatch(/^deployed hello v1 /);

    const listed = await tessera("functions", "list", ...auth);
    expect(listed.code).toBe(0);
    const names = (JSON.parse(listed.stdout) as { data: Array<{ name: string }> }).data.map((fn) => fn.name);
    expect(names).toContain("hello");

    const invoked = await tessera("functions", "invoke", "hello", "--path", "/?name=Ada", ...auth);
    expect(invoked.stderr).toBe("");
    expect(invoked.code).toBe(0);
    expect(JSON.parse(invoked.stdout)).toMatchObject({ message: "Hello, Ada!", calls: 1 });
  });

  it("takes an author from functions new to a deployed, triggered function with a pinned npm major", async () => {
    const registry: FakeNpmRegistry = await startFakeNpmRegistry({
      shout: {
        "1.2.0": { files: { "index.js": SHOUT("!"), "index.d.ts": SHOUT_TYPES } },
        "2.0.0": { files: { "index.js": SHOUT("!!! (v2)"), "index.d.ts": SHOUT_TYPES } },
      },
    });
    const children: ChildProcess[] = [];
    try {
      // The function and its one npm dependency, pinned to the older major as the author's import says.
      expect((await tessera("functions", "new", "notes")).code).toBe(0);
      const folder = join(project, "notes");
      const installed = await run(
        "npm",
        ["install", "--no-audit", "--no-fund", "--registry", registry.url, "shout@1"],
        project,
      );
      expect(installed.code, installed.stderr).toBe(0);
      const source = readFileSync(join(folder, "index.ts"), "utf8");
      writeFileSync(join(folder, "index.ts"), notesSource(source, "Hello"));

      // deno check and deno test, offline, with the real deno: the SDK and shout from node_modules.
      const unavailable = denoMissing();
      if (unavailable === null) {
        const env = denoEnv(join(root, "deno-dir"));
        const checked = await runDeno(["check", "index.ts", "index.test.ts"], { cwd: folder, env });
        expect(checked.code, checked.output).toBe(0);
        const tested = await runDeno(["test", "--allow-read"], { cwd: folder, env });
        expect(tested.code, tested.output).toBe(0);
        expect(tested.output).toMatch(/ok \| 1 passed/);
      } else console.warn(`deno check and deno test skipped: ${unavailable}`);

      // serve through the local server, in its sandbox organization; an editor's atomic save reloads it.
      const served = follow(
        project,
        join(project, "node_modules/.bin/tessera"),
        ["functions", "serve", "notes", "--port", "0"],
        { TESSERA_DATA_DIR: dataDir, TESSERA_NPM_REGISTRY: registry.url },
      );
      children.push(served.child);
      const listening = await served.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      expect(served.output()).toContain('serving against the sandbox organization "sandbox"');
      const base = listening[1]!;
      expect(await (await fetch(`${base}/?name=ada`)).json()).toMatchObject({
        message: "Hello, ada!",
        shout: "ADA!",
      });
      const temp = join(folder, ".index.ts.swp-tmp");
      writeFileSync(temp, notesSource(source, "Hi"));
      renameSync(temp, join(folder, "index.ts"));
      await served.waitFor(/reloaded \(index\.ts\)/);
      expect(await (await fetch(`${base}/?name=ada`)).json()).toMatchObject({ message: "Hi, ada!" });
      // An event tried locally: the trigger's request, sent to serve, with no header written by hand.
      const port = new URL(base).port;
      const local = await run(
        join(project, "node_modules/.bin/tessera"),
        ["functions", "trigger", "notes", "--event", "contact.created", "--local", "--port", port],
        project,
        { TESSERA_DATA_DIR: dataDir },
      );
      expect(local.stderr).toBe("");
      expect(local.stdout).toMatch(
        /^succeeded notes \(local, http:\/\/127\.0\.0\.1:\d+\/\): contact\.created evt_\S+ → 204/,
      );
      await served.waitFor(/heard contact\.created/);
      served.child.kill("SIGINT");
      await served.exited;

      // Triggers next to the code: deno.json's tessera section subscribes to contact.created.
      const denoJson = JSON.parse(readFileSync(join(folder, "deno.json"), "utf8")) as {
        tessera: { events: string[] };
      };
      denoJson.tessera.events = ["contact.created"];
      writeFileSync(join(folder, "deno.json"), JSON.stringify(denoJson, null, 2));
      const auth = ["--url", server.url, "--key", key];
      const deployed = await run(
        join(project, "node_modules/.bin/tessera"),
        ["functions", "deploy", "notes", ...auth],
        project,
        { TESSERA_NPM_REGISTRY: registry.url },
      );
      expect(deployed.stderr).toBe("");
      expect(deployed.code).toBe(0);
      const shown = await tessera("functions", "get", "notes", ...auth);
      const triggers = (JSON.parse(shown.stdout) as { triggers: unknown[] }).triggers;
      expect(triggers).toEqual([expect.objectContaining({ type: "event", events: ["contact.created"] })]);
      // The deployed version answers with the shout 1.2.0 it was tested with (node_modules' copy, in
      // the range npm:shout@1 names), though the registry's latest is 2.0.0.
      const invoked = await tessera("functions", "invoke", "notes", "--path", "/?name=ada", ...auth);
      expect(JSON.parse(invoked.stdout)).toMatchObject({ message: "Hi, ada!", shout: "ADA!" });

      // logs --follow sees the run a trigger by hand makes.
      const logs = follow(project, join(project, "node_modules/.bin/tessera"), [
        "functions",
        "logs",
        "notes",
        "--follow",
        ...auth,
      ]);
      children.push(logs.child);
      const triggered = await tessera("functions", "trigger", "notes", "--event", "contact.created", ...auth);
      expect(triggered.stderr).toBe("");
      expect(triggered.code).toBe(0);
      expect(triggered.stdout).toMatch(/^succeeded notes v1: contact\.created evt_\S+ → 204/);
      await logs.waitFor(/heard contact\.created/);
      // And a real contact.created runs it, through the subscription deno.json declared.
      const contact = await fetch(`${server.url}/v1/contacts`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Ada Lovelace" }),
      });
      expect(contact.status).toBe(201);
      await logs.waitFor(/heard contact\.created[^]*heard contact\.created/);
    } finally {
      for (const child of children) child.kill("SIGKILL");
      await registry.close();
    }
  });

  it("says a failure in one line, also from a package.json script run with npm --silent", async () => {
    const bad = `sk_live_${"x".repeat(32)}`;
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({
        name: "project",
        private: true,
        scripts: { fns: `tessera functions list --url ${server.url} --key ${bad}` },
      }),
    );
    const direct = await tessera("functions", "list", "--url", server.url, "--key", bad);
    expect(direct.code).toBe(1);
    expect(direct.stderr.trim().split("\n")).toHaveLength(1);
    expect(direct.stderr).toMatch(/^error: /);

    const script = await run("npm", ["run", "--silent", "fns"], project);
    expect(script.code).toBe(1);
    expect(script.stdout).toBe("");
    expect(script.stderr.trim().split("\n")).toHaveLength(1);
    expect(script.stderr).toMatch(/^error: /);
  });
});

/** The fake npm package `shout`: its default export upper-cases and ends with `ending`. */
const SHOUT = (ending: string) =>
  `export default function shout(text) { return text.toUpperCase() + ${JSON.stringify(ending)}; }\n`;
const SHOUT_TYPES = "export default function shout(text: string): string;\n";

/**
 * The scaffold's handler with an npm dependency pinned to its older major and an event branch:
 * `greeting` replaces "Hello" (a save the test can see), a trigger's request logs its event type.
 */
function notesSource(scaffold: string, greeting: string): string {
  return scaffold
    .replace(
      'import type { Context, Env } from "tessera/types";',
      'import type { Context, Env } from "tessera/types";\nimport shout from "npm:shout@1";',
    )
    .replace(
      "    const name = new URL(req.url)",
      `    if (req.headers.get("tessera-trigger") === "event") {
      const event = (await req.json()) as { type: string };
      console.log(\`heard \${event.type}\`);
      return new Response(null, { status: 204 });
    }
    const name = new URL(req.url)`,
    )
    .replace("message: `Hello, ${name}!`", `message: \`${greeting}, \${name}!\`, shout: shout(name)`);
}

/** A long-running command (serve, logs --follow): its output so far, and a wait for a line. */
function follow(cwd: string, command: string, args: string[], extra: Record<string, string> = {}) {
  const child = spawn(command, args, { cwd, env: cleanEnv(extra), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const wake of waiters) wake();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const waitFor = (pattern: RegExp, timeoutMs = 60_000) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(output);
        if (!match) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(match);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${pattern} from ${args.join(" ")} in ${timeoutMs} ms:\n${output}`));
      }, timeoutMs);
      waiters.add(check);
      check();
      void exited.then(() =>
        setTimeout(() => {
          if (!waiters.has(check)) return;
          waiters.delete(check);
          clearTimeout(timer);
          reject(new Error(`${args.join(" ")} exited before ${pattern}:\n${output}`));
        }, 50),
      );
    });
  return { child, exited, output: () => output, waitFor };
}
