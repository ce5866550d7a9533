import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, startServerProcess, type ServerProcess } from "../helpers/process.ts";
import { startFakeRemote, type FakeRemote } from "./fake-remote.ts";

/** `tessera functions …` as a developer runs it: the real CLI process against a real server process. */
// Every CLI call starts a Node process with the TypeScript loader: 2–5 s each when the full suite loads
// the machine, so a test of six calls needs more than the default 30 s.
describe("tessera functions against a running server", { timeout: 90_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "tessera-cli-e2e-"));
  const dataDir = join(root, "data");
  let server: ServerProcess;
  let remote: FakeRemote;
  let env: Record<string, string>;

  const cli = (...args: string[]) => runCli(["functions", ...args], env);
  const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;
  const fnDir = (name: string, files: Record<string, string>) => {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    for (const [path, body] of Object.entries(files)) writeFileSync(join(dir, path), body);
    return dir;
  };

  beforeAll(async () => {
    mkdirSync(dataDir);
    remote = await startFakeRemote(
      () => ({ "/shout.ts": { body: `export const shout = (s: string): string => s.toUpperCase();` } }),
      {
        "@acme/greet": {
          versions: {
            "1.0.0": {
              exports: { ".": "./mod.ts" },
              files: { "mod.ts": `export const greet = (name: string) => "hello " + name;` },
            },
          },
        },
      },
    );
    server = await startServerProcess({ TESSERA_DATA_DIR: dataDir });
    const key = /sk_live_[0-9A-Za-z]+/.exec(server.output())?.[0] ?? "";
    env = { TESSERA_DATA_DIR: dataDir, TESSERA_API_KEY: key, TESSERA_JSR_URL: remote.jsrUrl };
  }, 60_000);
  afterAll(async () => {
    await server?.stop("SIGKILL");
    await remote?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("deploys a folder with vendored jsr: and https: imports, then a second version", async () => {
    const dir = fnDir("hello", {
      "deno.json": JSON.stringify({ imports: { greet: "jsr:@acme/greet@^1" } }),
      "index.ts": `import { greet } from "greet";
import { shout } from "${remote.url}/shout.ts";
export default {
  async fetch(request: Request) {
    console.log("serving " + request.method + " " + new URL(request.url).pathname);
    if (request.method === "POST") return new Response(request.headers.get("x-tag") + ":" + (await request.text()));
    return new Response(shout(greet("ada")));
  },
};`,
    });
    // The server is found through the data dir's server.json, as on a developer's machine.
    const first = await cli("deploy", dir);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^deployed hello v1 \(4 files, bundle \d+ bytes\)/);
    expect(first.stdout).toContain(`${server.url}/v1/functions/hello/invoke`);

    const second = await cli("deploy", dir, "--name", "hello", "--public");
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^deployed hello v2 /);
  });

  it("lists and gets functions, over --url and --key as well as the environment", async () => {
    const listed = await runCli(["functions", "list", "--url", server.url, "--key", env.TESSERA_API_KEY!], {
      TESSERA_DATA_DIR: join(root, "elsewhere"),
    });
    expect(listed.code).toBe(0);
    expect((json(listed.stdout).data as Array<{ name: string }>).map((fn) => fn.name)).toEqual(["hello"]);
    const got = await cli("get", "hello");
    expect(got.code).toBe(0);
    expect(json(got.stdout)).toMatchObject({ name: "hello", version: 2, auth: "public" });
  });

  it("invokes the deployed function, running the vendored code, with path, method, body and headers", async () => {
    const got = await cli("invoke", "hello");
    expect(got).toMatchObject({ code: 0, stdout: "HELLO ADA\n" });
    const posted = await cli(
      "invoke",
      "hello",
      "--path",
      "/orders/7",
      "--data",
      "body",
      "--header",
      "X-Tag: t1",
    );
    expect(posted).toMatchObject({ code: 0, stdout: "t1:body\n" });
  });

  it("prints the function's console lines with their request ids, filtered by level", async () => {
    const logs = await cli("logs", "hello");
    expect(logs.code).toBe(0);
    const lines = logs.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\S+ log {3}\S+ serving GET \/v1\/functions\/hello\/invoke$/);
    expect(lines[1]).toMatch(/ serving POST \/v1\/functions\/hello\/invoke\/orders\/7$/);
    const errors = await cli("logs", "hello", "--level", "error");
    expect(errors).toMatchObject({ code: 0, stdout: "" });
  });

  it("sets, lists and unsets secrets, never printing their values", async () => {
    const set = await cli("secrets", "set", "hello", "API_TOKEN=s3cret=x", "REGION=eu");
    expect(set.code).toBe(0);
    expect(set.stdout).not.toContain("s3cret");
    const names = async () =>
      (json((await cli("secrets", "list", "hello")).stdout).data as Array<{ name: string }>)
        .map((s) => s.name)
        .sort();
    expect(await names()).toEqual(["API_TOKEN", "REGION"]);
    expect((await cli("secrets", "unset", "hello", "REGION")).code).toBe(0);
    expect(await names()).toEqual(["API_TOKEN"]);
  });

  it("rolls back to the previous version or a named one", async () => {
    const back = await cli("rollback", "hello");
    expect(back.code).toBe(0);
    expect(json(back.stdout)).toMatchObject({ name: "hello", version: 1 });
    const forward = await cli("rollback", "hello", "--version", "2");
    expect(json(forward.stdout)).toMatchObject({ version: 2 });
  });

  it("exits 1 with the server's problem, or the vendoring error, when a deploy is refused", async () => {
    const broken = await cli(
      "deploy",
      fnDir("broken", { "index.ts": "export default {\n  fetch: ( => 1,\n};\n" }),
    );
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/index\.ts:2:\d+/);
    const unknown = await cli("deploy", fnDir("unknown", { "index.ts": `import "jsr:@acme/nope@1";` }));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /^error: jsr:@acme\/nope@1 \(imported by the function\): could not fetch .*404/,
    );
    const keyless = await runCli(["functions", "list", "--url", server.url], { TESSERA_API_KEY: "" });
    expect(keyless.code).toBe(1);
    expect(keyless.stderr).toContain("no API key");
  });

  it("deploys triggers from flags and lists the runs they make", async () => {
    const dir = fnDir("watcher", { "index.ts": `export default () => new Response(null, { status: 204 });` });
    const deployed = await cli(
      "deploy",
      dir,
      "--event",
      "contact.created,contact.updated",
      "--cron",
      "0 8 * * *",
    );
    expect(deployed.code).toBe(0);
    const fn = json((await cli("get", "watcher")).stdout);
    expect(fn.triggers).toEqual([
      { type: "event", events: ["contact.created", "contact.updated"] },
      { type: "cron", schedule: "0 8 * * *" },
    ]);
    const key = env.TESSERA_API_KEY!;
    await fetch(`${server.url}/v1/contacts`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Dorothy Vaughan" }),
    });
    // Waits over HTTP (each CLI call starts a Node process: seconds on a loaded machine), then lists once.
    const statuses = async () => {
      const answer = await fetch(`${server.url}/v1/functions/watcher/runs`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return ((await answer.json()) as { data: Array<{ status: string }> }).data.map((run) => run.status);
    };
    for (let i = 0; i < 100 && !(await statuses()).includes("succeeded"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const listed = (await cli("runs", "watcher")).stdout;
    expect(listed).toMatch(/frun_[0-9a-f]{32} succeeded ×1 contact\.created/);
    expect((await cli("deploy", dir, "--no-triggers")).code).toBe(0);
    expect(json((await cli("get", "watcher")).stdout).triggers).toEqual([]);
    const bad = await cli("deploy", dir, "--cron", "0 8 * *");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("triggers[0].schedule");
  });

  it("reads a relative folder from where the command was typed (INIT_CWD, as npm sets it), and names a missing one", async () => {
    fnDir("relative", { "index.ts": `export default () => new Response("relative");` });
    const typedIn = { ...env, INIT_CWD: root };
    const deployed = await runCli(["functions", "deploy", "./relative"], typedIn);
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toMatch(/^deployed relative v1 /);
    const missing = await runCli(["functions", "deploy", "./nowhere"], typedIn);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `error: no such folder: ${join(root, "nowhere")} (paths are read from the folder you ran the command in)\n`,
    );
  });

  it("starts a cron run now, without waiting for the schedule", async () => {
    const dir = fnDir("morning", { "index.ts": `export default () => new Response(null, { status: 204 });` });
    expect((await cli("deploy", dir, "--cron", "0 8 * * *")).code).toBe(0);
    const started = await cli("runs", "start", "morning");
    expect(started.code).toBe(0);
    expect(json(started.stdout)).toMatchObject({ trigger: "cron", schedule: "0 8 * * *", status: "pending" });
    const unknown = await cli("runs", "start", "morning", "--cron", "0 9 * * *");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("has no schedule '0 9 * * *'");
    const asJson = await cli("runs", "start", "morning", "--cron", "0 9 * * *", "--json");
    expect(json(asJson.stderr)).toMatchObject({ errors: [{ code: "unknown_schedule" }] });
  });

  it("deletes a function; getting or invoking it afterwards is a 404 (exit 1), said in one line", async () => {
    expect((await cli("delete", "hello")).code).toBe(0);
    const gone = await cli("get", "hello");
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^error: Not found: No such function: 'hello' \(req_[0-9A-Za-z]+\)\n$/);
    const asJson = await cli("get", "hello", "--json");
    expect(json(asJson.stderr)).toMatchObject({ status: 404, code: "not_found" });
    const invoked = await cli("invoke", "hello");
    expect(invoked.code).toBe(1);
    expect(invoked.stderr).toContain("error: the function answered 404");
  });

  it.each([
    [["deploy"], /usage: tessera functions deploy DIR/],
    [["get"], /usage: tessera functions get NAME/],
    [["secrets", "set", "hello", "NOT_A_PAIR"], /'NOT_A_PAIR' is not KEY=VALUE/],
    [["secrets", "list"], /usage: tessera functions secrets list NAME/],
    [["invoke", "hello", "--header", "no-colon"], /--header takes "Name: value"/],
    [["frobnicate"], /usage: tessera functions deploy\|list/],
  ])("exits 2 on usage errors: functions %j", async (args, message) => {
    const result = await cli(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});
