import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildEventCatalog, eventJsonSchema, RESOURCES, type CatalogSource } from "../../engines/index.ts";
import { sampleEventData, sampleEventDataFromSchema } from "../../runtime/event-sample.ts";
import { BIN, runCli, startServerProcess, type ServerProcess } from "../helpers/process.ts";

/**
 * The function author's kit against a running server: triggers declared in deno.json's `tessera`
 * section (flags over them), `functions trigger` running the deployed function with an event made
 * up on the spot, and `functions logs --follow` printing lines as they are saved.
 */
// Every CLI call starts a Node process with the TypeScript loader: seconds each on a loaded machine.
describe("tessera functions: triggers in deno.json, trigger, logs --follow", { timeout: 120_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "tessera-triggers-"));
  const dataDir = join(root, "data");
  let server: ServerProcess;
  let env: Record<string, string>;

  const cli = (...args: string[]) => runCli(["functions", ...args], env);
  const api = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${server.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${env.TESSERA_API_KEY}`, ...init.headers },
    });
    return {
      status: response.status,
      body: (await response.json().catch(() => null)) as Record<string, unknown>,
    };
  };
  const fnDir = (name: string, files: Record<string, unknown>) => {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    for (const [path, body] of Object.entries(files)) {
      writeFileSync(join(dir, path), typeof body === "string" ? body : JSON.stringify(body, null, 2));
    }
    return dir;
  };
  /** Waits (over HTTP, not by the clock) until `ready` holds, or gives up after ~30 s. */
  const until = async (ready: () => boolean | Promise<boolean>) => {
    for (let i = 0; i < 300 && !(await ready()); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
  };

  beforeAll(async () => {
    mkdirSync(dataDir);
    server = await startServerProcess({ TESSERA_DATA_DIR: dataDir });
    const key = /sk_live_[0-9A-Za-z]+/.exec(server.output())?.[0] ?? "";
    env = { TESSERA_DATA_DIR: dataDir, TESSERA_API_KEY: key };
  }, 60_000);
  afterAll(async () => {
    await server?.stop("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  const handler = `export default {
  async fetch(req: Request) {
    const event = await req.json();
    const name = event.data.object.name;
    console.log("got " + event.type + " " + name + " by " + req.headers.get("tessera-trigger"));
    return new Response(null, { status: name === "fail" ? 500 : 204 });
  },
};`;

  it("deploys the name, privacy, limits and triggers of deno.json's tessera section", async () => {
    const dir = fnDir("project", {
      "index.ts": handler,
      "deno.json": {
        imports: {},
        tessera: {
          name: "greeter",
          public: true,
          limits: { cpu_time_ms: 1000 },
          events: ["contact.created"],
          cron: ["0 8 * * *", { schedule: "0 9 * * 1", timezone: "Europe/Berlin" }],
        },
      },
    });
    const deployed = await cli("deploy", dir);
    expect(deployed.stderr).toBe("");
    expect(deployed.code).toBe(0);
    expect(deployed.stdout).toMatch(/^deployed greeter v1 /);
    expect(deployed.stdout).toMatch(/\/v1\/functions\/fn_\w+\/invoke \(public\)\n/);
    expect(deployed.stdout).toContain("  on contact.created\n");
    expect(deployed.stdout).toContain('  cron "0 9 * * 1" (Europe/Berlin)\n');
    const { body: fn } = await api("/v1/functions/greeter");
    expect(fn).toMatchObject({ auth: "public", limits: { cpu_time_ms: 1000 } });
    expect(fn.triggers).toEqual([
      { type: "event", events: ["contact.created"] },
      { type: "cron", schedule: "0 8 * * *" },
      { type: "cron", schedule: "0 9 * * 1", timezone: "Europe/Berlin" },
    ]);
  });

  it("lets flags override the section: --name, --private, --event, --cron, --timezone, --no-triggers", async () => {
    const dir = join(root, "project");
    const overridden = await cli(
      "deploy",
      dir,
      "--name",
      "greeter-2",
      "--private",
      "--event",
      "deal.created",
      "--timezone",
      "America/New_York",
    );
    expect(overridden.code, overridden.stderr).toBe(0);
    const { body: fn } = await api("/v1/functions/greeter-2");
    expect(fn.auth).toBe("key");
    // --event replaced the section's events; the section's schedules stay, in --timezone.
    expect(fn.triggers).toEqual([
      { type: "event", events: ["deal.created"] },
      { type: "cron", schedule: "0 8 * * *", timezone: "America/New_York" },
      { type: "cron", schedule: "0 9 * * 1", timezone: "America/New_York" },
    ]);
    expect((await cli("deploy", dir, "--name", "greeter-2", "--cron", "30 6 * * *")).code).toBe(0);
    expect((await api("/v1/functions/greeter-2")).body.triggers).toEqual([
      { type: "event", events: ["contact.created"] },
      { type: "cron", schedule: "30 6 * * *" },
    ]);
    expect((await cli("deploy", dir, "--name", "greeter-2", "--no-triggers")).code).toBe(0);
    expect((await api("/v1/functions/greeter-2")).body.triggers).toEqual([]);
  });

  it("refuses a bad tessera section in one line naming the key, deploying nothing", async () => {
    const cases: Array<[unknown, string]> = [
      [
        { limits: { memroy_mb: 64 } },
        "deno.json: tessera.limits.memroy_mb: unknown key (one of memory_mb, cpu_time_ms, wall_time_ms)",
      ],
      [{ name: "misnamed", public: "yes" }, "deno.json: tessera.public: expected boolean, received string"],
      [
        { name: "misnamed", trigers: [] },
        "deno.json: tessera.trigers: unknown key (one of name, public, limits, events, cron)",
      ],
      [{ name: "misnamed", cron: [8] }, 'deno.json: tessera.cron[0]: expected a schedule ("0 8 * * *")'],
    ];
    for (const [section, message] of cases) {
      const dir = fnDir("misnamed", { "index.ts": handler, "deno.json": { tessera: section } });
      const refused = await cli("deploy", dir);
      expect(refused.code).toBe(1);
      expect(refused.stderr.split("\n")).toHaveLength(2);
      expect(refused.stderr).toContain(`error: ${message}`);
    }
    expect((await api("/v1/functions/misnamed")).status).toBe(404);
  });

  it("scaffolds a tessera section that deploys as it comes: private, no triggers", async () => {
    expect((await cli("new", "fresh", "--dir", root)).code).toBe(0);
    const deployed = await cli("deploy", join(root, "fresh"));
    expect(deployed.code, deployed.stderr).toBe(0);
    expect((await api("/v1/functions/fresh")).body).toMatchObject({ auth: "key", triggers: [] });
  });

  it("triggers the deployed function with an event from --data, or a sample; its logs show the run", async () => {
    const data = join(root, "katherine.json");
    writeFileSync(data, JSON.stringify({ object: { object: "contact", name: "Katherine Johnson" } }));
    const fired = await cli("trigger", "greeter", "--event", "contact.created", "--data", data);
    expect(fired.stderr).toBe("");
    expect(fired.code).toBe(0);
    expect(fired.stdout).toMatch(/^succeeded greeter v1: contact\.created evt_\w+ → 204 in \d+ ms\n/);
    const requestId = /--request-id (req_\w+)/.exec(fired.stdout)?.[1] ?? "";
    const logged = () => api(`/v1/functions/greeter/logs?request_id=${requestId}`);
    await until(async () => ((await logged()).body.data as unknown[]).length > 0);
    const logs = await cli("logs", "greeter", "--request-id", requestId);
    expect(logs.stdout).toMatch(/ log {3}req_\w+ got contact\.created Katherine Johnson by event\n$/);

    // No --data: a contact shaped as real ones are.
    const sampled = await cli("trigger", "greeter", "--event", "contact.created", "--json");
    expect(sampled.code, sampled.stderr).toBe(0);
    const run = JSON.parse(sampled.stdout) as { subscribed: boolean; event: { data: { object: unknown } } };
    expect(run.subscribed).toBe(true);
    expect(run.event.data.object).toMatchObject({
      object: "contact",
      name: "Ada Lovelace",
      id: expect.any(String),
    });

    // Not subscribed: it still runs, and says a real one would not.
    const other = await cli("trigger", "greeter", "--event", "deal.created");
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).toContain("note: greeter does not subscribe to deal.created");
  });

  it("runs the function as the key that triggers it, not the key that deployed it", async () => {
    const dir = fnDir("whoami", {
      "index.ts": `export default async function (_req: Request, ctx: { user: unknown }) {
  console.log("user " + JSON.stringify(ctx.user));
  return Response.json(ctx.user);
}`,
    });
    // Deployed with the setup key (env), triggered with another full-access key of the same organization.
    expect((await cli("deploy", dir)).code).toBe(0);
    const made = await api("/v1/api_keys", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "trigger-caller", kind: "full_access" }),
    });
    expect(made.status).toBe(201);
    const caller = made.body as { id: string; secret: string };
    const keys = (await api("/v1/api_keys")).body.data as Array<{ id: string }>;
    const deployer = keys.find((key) => key.id !== caller.id)?.id;
    expect(deployer).toMatch(/^key_/);

    const fired = await runCli(["functions", "trigger", "whoami", "--event", "contact.created", "--json"], {
      ...env,
      TESSERA_API_KEY: caller.secret,
    });
    expect(fired.code, fired.stderr).toBe(0);
    const run = JSON.parse(fired.stdout) as { status: string; request_id: string };
    expect(run.status).toBe("succeeded");
    const logged = async () =>
      (await api(`/v1/functions/whoami/logs?request_id=${run.request_id}`)).body.data as Array<{
        message: string;
      }>;
    await until(async () => (await logged()).length > 0);
    const [line] = await logged();
    const user = JSON.parse(line!.message.replace(/^user /, "")) as Record<string, unknown>;
    expect(user).toMatchObject({ type: "api_key", key_id: caller.id, kind: "full_access", scopes: ["*"] });
    expect(user.key_id).not.toBe(deployer);
  });

  it("says in one line what went wrong: an unknown event type, a failed run, a bad --data file", async () => {
    const unknown = await cli("trigger", "greeter", "--event", "contact.exploded");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /^error: .*unknown event type 'contact\.exploded'; see GET \/v1\/event_types \(req_\w+\)\n$/,
    );

    const data = join(root, "fail.json");
    writeFileSync(data, JSON.stringify({ object: { name: "fail" } }));
    const failed = await cli("trigger", "greeter", "--event", "contact.created", "--data", data);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^failed greeter v1: contact\.created evt_\w+ → 500 /);
    expect(failed.stderr).toBe("error: the run failed: the function answered 500\n");

    writeFileSync(data, "{ not json");
    const broken = await cli("trigger", "greeter", "--event", "contact.created", "--data", data);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^error: .*fail\.json is not JSON: /);
    const usage = await cli("trigger", "greeter");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("usage: tessera functions trigger NAME --event TYPE");
  });

  it("follows the logs: prints lines saved after it started, each once, filtered, until SIGINT", async () => {
    const dir = fnDir("chatter", {
      "index.ts": `export default {
  fetch(req: Request) {
    const url = new URL(req.url);
    const say = url.searchParams.get("say");
    for (let i = 0; i < Number(url.searchParams.get("n") ?? 1); i++) {
      console.log("log " + say + " " + i);
      console.error("error " + say + " " + i);
    }
    return new Response(say);
  },
};`,
    });
    expect((await cli("deploy", dir)).code).toBe(0);
    const say = (words: string, n = 1) => api(`/v1/functions/chatter/invoke?say=${words}&n=${n}`);
    await say("before");
    await until(async () => ((await api("/v1/functions/chatter/logs")).body.data as unknown[]).length > 0);

    const child = spawn(
      process.execPath,
      ["--no-node-snapshot", BIN, "functions", "logs", "chatter", "--follow", "--level", "error"],
      { env: { ...process.env, LOG_LEVEL: "warn", ...env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    // What was there first: then it is following.
    await until(() => stdout.includes("error before 0"));
    expect(stdout).toContain("error before 0");

    await say("after");
    // More lines at one instant than a page holds.
    await say("burst", 150);
    await until(() => stdout.includes("error burst 149"));
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
    const messages = stdout
      .trim()
      .split("\n")
      .map((line) => line.split(" ").slice(3).join(" "));
    expect(messages[0]).toBe("error before 0");
    // Each once, none of the other level; two invocations' lines may interleave in a page.
    expect(messages.slice(1).sort()).toEqual(
      ["error after 0", ...Array.from({ length: 150 }, (_, i) => `error burst ${i}`)].sort(),
    );
  });

  it("makes samples that are valid objects of each data event kind", () => {
    const catalog = buildEventCatalog(RESOURCES.map((resource) => resource as unknown as CatalogSource));
    const now = new Date("2025-06-01T08:00:00Z");
    for (const eventType of catalog) {
      const parsed = eventType.object.safeParse(sampleEventData(eventType, now).object);
      expect(parsed.error?.issues ?? [], eventType.type).toEqual([]);
      // --local samples from the served JSON Schema: the same object as the route's.
      const served = sampleEventDataFromSchema(eventJsonSchema(eventType), now);
      expect(served, eventType.type).toEqual(sampleEventData(eventType, now));
    }
  });

  it("sends --local the request a deployed run gets, to functions serve's port; failures in one line", async () => {
    const seen: Array<{ method: string; headers: Record<string, unknown>; body: string }> = [];
    let status = 204;
    const local = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        seen.push({ method: req.method ?? "", headers: req.headers, body });
        res.writeHead(status, { "x-request-id": "req_local1" }).end();
      });
    });
    await new Promise<void>((resolve) => local.listen(0, "127.0.0.1", resolve));
    const port = String((local.address() as AddressInfo).port);
    // No key: the catalog is read with the key functions serve keeps for the sandbox.
    const noKey = { TESSERA_DATA_DIR: dataDir };
    writeFileSync(join(dataDir, "sandbox.json"), JSON.stringify({ keys: { org_x: env.TESSERA_API_KEY } }));
    try {
      const sent = await runCli(
        ["functions", "trigger", "greeter", "--event", "contact.created", "--local", "--port", port],
        noKey,
      );
      expect(sent.stderr).toBe("");
      expect(sent.code).toBe(0);
      expect(sent.stdout).toMatch(
        new RegExp(
          `^succeeded greeter \\(local, http://127\\.0\\.0\\.1:${port}/\\): contact\\.created evt_\\S+ → 204`,
        ),
      );
      expect(sent.stdout).toContain("request id: req_local1");
      const [request] = seen;
      const event = JSON.parse(request!.body) as { id: string; type: string; data: { object: object } };
      expect(request!.method).toBe("POST");
      expect(request!.headers).toMatchObject({
        "content-type": "application/json",
        "user-agent": "Tessera-Triggers/1",
        "tessera-trigger": "event",
        "tessera-attempt": "1",
        "tessera-event-id": event.id,
      });
      expect(request!.headers["tessera-run-id"]).toMatch(/^frun_[0-9a-f]{32}$/);
      expect(event).toMatchObject({ object: "event", type: "contact.created" });
      expect(Object.keys(event.data.object)).toContain("email");

      const bad = join(root, "bad-data.json");
      writeFileSync(bad, JSON.stringify({ name: "no object" }));
      const failures = [
        [["--event", "contact.created", "--data", bad], /^error: --data is not an event's data/],
        [["--event", "contact.nope"], /^error: unknown event type 'contact\.nope'/],
      ] as const;
      for (const [args, message] of failures) {
        const refused = await runCli(
          ["functions", "trigger", "greeter", ...args, "--local", "--port", port],
          noKey,
        );
        expect(refused.code, refused.stderr).toBe(1);
        expect(refused.stderr.trim().split("\n")).toHaveLength(1);
        expect(refused.stderr).toMatch(message);
      }
      // The sandbox's key goes only to the server that minted it: with another --url and no key, none is sent.
      const before = seen.length;
      const elsewhere = await runCli(
        ["functions", "trigger", "greeter", "--event", "contact.created", "--local", "--port", port],
        { ...noKey, TESSERA_URL: `http://127.0.0.1:${port}` },
      );
      expect(elsewhere.code).toBe(1);
      expect(elsewhere.stderr.trim()).toBe("error: no API key: pass --key or set TESSERA_API_KEY");
      expect(seen.slice(before)).toEqual([]);
      status = 500;
      const failed = await runCli(
        ["functions", "trigger", "greeter", "--event", "contact.created", "--local", "--port", port],
        noKey,
      );
      expect(failed.code).toBe(1);
      expect(failed.stdout).toMatch(/^failed greeter .* → 500/);
      expect(failed.stderr.trim()).toBe("error: the run failed: the function answered 500");
    } finally {
      await new Promise<void>((resolve) => local.close(() => resolve()));
    }
    const nobody = await runCli(
      ["functions", "trigger", "greeter", "--event", "contact.created", "--local", "--port", port],
      noKey,
    );
    expect(nobody.code).toBe(1);
    expect(nobody.stderr.trim().split("\n")).toHaveLength(1);
    expect(nobody.stderr).toMatch(
      /^error: nothing answered at http:\/\/127\.0\.0\.1:\d+\/ \(ECONNREFUSED\): run tessera functions serve DIR there first/,
    );
  });
});
