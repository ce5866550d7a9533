import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "../helpers/process.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A command as a shell runs it, in `cwd`, with an environment free of the npm run that started vitest. */
function run(command: string, args: string[], cwd: string, extra: Record<string, string> = {}): Promise<Run> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^npm_/i.test(name) && name !== "INIT_CWD" && !name.startsWith("TESSERA_"))
      env[name] = value;
  }
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...env, ...extra } }, (error, stdout, stderr) => {
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

    const serve = await tessera("functions", "serve", ".");
    expect(serve.code).toBe(2);
    expect(serve.stderr.trim().split("\n")).toHaveLength(1);
    expect(serve.stderr).toContain("functions serve");
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
