import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, startServerProcess, type ServerProcess } from "../helpers/process.ts";

/** `/metrics` answers only a scrape that presents this (docs/operations.md). */
const METRICS_TOKEN = "e2e-metrics-token-0123456789";

describe("tessera serve on the embedded store", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tessera-e2e-"));
  const env = { TESSERA_DATA_DIR: dataDir, TESSERA_METRICS_TOKEN: METRICS_TOKEN };
  let server: ServerProcess;
  let key: string;

  const get = (path: string, bearer = key) =>
    fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${bearer}` } });

  beforeAll(async () => {
    server = await startServerProcess(env);
    key = /sk_live_[0-9A-Za-z]+/.exec(server.output())?.[0] ?? "";
  }, 60_000);
  afterAll(async () => {
    await server?.stop("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("creates the default organization on first start and prints its key once", async () => {
    expect(server.output()).toContain("created organization 'default'");
    expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32,}$/);
    const me = (await (await get("/v1/me")).json()) as { organization: { name: string } };
    expect(me.organization.name).toBe("default");
  });

  it("reads JSON bodies off the socket: creates, refuses malformed JSON and oversized bodies", async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/v1/contacts`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
        body,
      });
    const created = await post(JSON.stringify({ name: "Grace Hopper", email: "grace@example.com" }));
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ object: "contact", name: "Grace Hopper" });
    expect((await post('{"name": ')).status).toBe(400);
    // 2 MB, past the default 1 MB limit, sent chunked so no Content-Length gives it away.
    const big = JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) });
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const tooLarge = await fetch(`${server.url}/v1/contacts`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get("content-type")).toBe("application/problem+json");
    expect((await get("/v1/me")).status).toBe(200);
  });

  it("invokes a function over HTTP: it sees the headers as Fetch lists them, without the key or hop-by-hop ones", async () => {
    const source = `export default { fetch: (req) => Response.json({ headers: [...req.headers], cookie: req.headers.get("cookie") }) };`;
    const deployed = await fetch(`${server.url}/v1/functions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "headers-echo", files: { "index.js": source } }),
    });
    expect(deployed.status).toBe(201);
    // Raw HTTP/1.1: repeated names in mixed case, two Cookie lines, padded values.
    const { port } = new URL(server.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () =>
        socket.write(
          [
            "GET /v1/functions/headers-echo/invoke/x HTTP/1.1",
            `Host: 127.0.0.1:${port}`,
            `Authorization: Bearer ${key}`,
            "X-Twice: one",
            "x-TWICE:   two  ",
            "Cookie: a=1",
            "cookie: b=2",
            "Keep-Alive: timeout=5",
            "Connection: close",
            "",
            "",
          ].join("\r\n"),
        ),
      );
      let text = "";
      socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toEqual({
      headers: [
        ["cookie", "a=1; b=2"],
        ["host", `127.0.0.1:${port}`],
        ["x-twice", "one, two"],
      ],
      cookie: "a=1; b=2",
    });
    // Served off the socket (api/invocation/node.ts), counted under the app's route pattern like any other request.
    const metrics = await (
      await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    expect(metrics).toMatch(
      /^tessera_http_requests_total\{[^}]*route="\/v1\/functions\/:id\/invoke\/\*"[^}]*\} [1-9]/m,
    );
    // The function's entries were bounded, by the watchdog or (before it held the isolate) by a timeout.
    const entries = ["watched", "timeout"].map((guard) =>
      Number(new RegExp(`^tessera_function_entries_${guard}_total (\\d+)$`, "m").exec(metrics)?.[1]),
    );
    expect(entries[0]! + entries[1]!).toBeGreaterThanOrEqual(1);
    expect(metrics).toMatch(/^# TYPE tessera_function_entries_stopped_total counter$/m);
    // The background queues, read from the store at scrape time.
    for (const name of [
      "tessera_webhook_deliveries_queued",
      "tessera_webhook_delivery_lag_seconds",
      "tessera_function_runs_queued",
      "tessera_function_run_lag_seconds",
    ]) {
      expect(metrics).toMatch(new RegExp(`^${name} \\d+(\\.\\d+)?$`, "m"));
    }
    expect(metrics).toMatch(/^tessera_metrics_collect_failures_total 0$/m);
  });

  it("runs a function's event trigger in the background: a new contact reaches it", async () => {
    const source = `export default async (req, ctx) => {
      const event = await req.json();
      await ctx.engines.growth.set("last-contact", event.data.object.id);
      return new Response(null, { status: 204 });
    };`;
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const deployed = await post("/v1/functions", {
      name: "on-contact",
      files: { "index.js": source },
      triggers: [{ type: "event", events: ["contact.created"] }],
    });
    expect(deployed.status).toBe(201);
    const contact = (await (await post("/v1/contacts", { name: "Katherine Johnson" })).json()) as {
      id: string;
    };
    let seen: unknown;
    for (let i = 0; i < 100 && seen !== contact.id; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const state = await get("/v1/engines/growth/state/last-contact");
      if (state.status === 200) seen = ((await state.json()) as { value: unknown }).value;
    }
    expect(seen).toBe(contact.id);
    // The run is marked succeeded once the function has answered: a moment after its write shows.
    const statuses = async () =>
      (
        (await (await get("/v1/functions/on-contact/runs")).json()) as { data: Array<{ status: string }> }
      ).data.map((run) => run.status);
    await expect.poll(statuses, { timeout: 10_000 }).toEqual(["succeeded"]);
  });

  it("serves the seed's example after `seed --demo` runs through the running server", async () => {
    const seeded = await runCli(["seed", "--demo"], env);
    expect(seeded.code).toBe(0);
    expect(JSON.parse(seeded.stdout)).toMatchObject({ invoices: 30 });
    const response = await get("/v1/invoices?status=overdue");
    expect(response.status).toBe(200);
    const page = (await response.json()) as { meta: { total: number }; data: { status: string }[] };
    expect(page.meta.total).toBeGreaterThan(0);
    expect(page.data.every((invoice: { status: string }) => invoice.status === "overdue")).toBe(true);
    // The same page again comes from the list cache, counted in /metrics.
    expect(await (await get("/v1/invoices?status=overdue")).json()).toEqual(page);
    const metrics = await (
      await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    expect(metrics).toMatch(/^# TYPE tessera_list_cache_hits_total counter$/m);
    expect(Number(/^tessera_list_cache_hits_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
  });

  it("runs operator commands while serve holds the data dir", async () => {
    expect((await runCli(["orgs", "create", "acme", "--plan", "pro"], env)).code).toBe(0);
    const created = await runCli(["keys", "create", "--org", "acme", "--kind", "read_only"], env);
    expect(created.code).toBe(0);
    const secret = /sk_live_[0-9A-Za-z]+/.exec(created.stdout)![0];
    expect((await get("/v1/invoices", secret)).status).toBe(200);

    const listed = JSON.parse((await runCli(["keys", "list", "--org", "acme"], env)).stdout);
    expect(JSON.stringify(listed)).not.toContain(secret);
    const revoked = await runCli(["keys", "revoke", listed[0].id, "--org", "acme"], env);
    expect(revoked.code).toBe(0);
    expect((await get("/v1/invoices", secret)).status).toBe(401);
  });

  it("refuses bad CLI input with a usage message and exit code 2", async () => {
    const result = await runCli(["keys", "create", "--org", "acme", "--kind", "root"], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--kind must be one of");
  });

  it("drains on SIGTERM, exits 0, and starts again without a new key", async () => {
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(existsSync(join(dataDir, "server.json"))).toBe(false);
    server = await startServerProcess(env);
    expect(server.output()).not.toContain("sk_live_");
    expect((await get("/v1/me")).status).toBe(200);
    expect(await server.stop("SIGTERM")).toBe(0);
  }, 60_000);
});
