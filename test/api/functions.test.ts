import { beforeAll, describe, expect, it } from "vitest";
import { functionJobs } from "../../runtime/index.ts";
import { silentLogger } from "../../core/index.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

const HELLO = `export default { fetch: () => Response.json({ hello: "world" }) };`;

describe.each(storeKinds())("function management on $name", (kind) => {
  let org: TestOrg;

  const t = useTestApp(kind, { env: { TESSERA_FUNCTION_MAX_UPLOAD_BYTES: String(3 * 1024 * 1024) } });

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
  });

  const deploy = (body: Record<string, unknown>, key = org.key) =>
    t.request("POST", "/v1/functions", { key, body: { files: { "index.ts": HELLO }, ...body } });
  const eventsOf = (orgId: string, type: string) =>
    t.store.query<{
      data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> };
    }>("SELECT data FROM events WHERE org_id = $1 AND type = $2 ORDER BY seq", [orgId, type]);
  const countDeployments = async (orgId = org.id) =>
    (
      await t.store.query<{ n: number }>("SELECT count(*) AS n FROM function_deployments WHERE org_id = $1", [
        orgId,
      ])
    )[0]!.n;

  it("deploys version 1 with 201, Location, the operator's default limits and a function.deployed event", async () => {
    const created = await deploy({ name: "hello" });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe("/v1/functions/hello");
    expect(created.body).toMatchObject({
      object: "function",
      name: "hello",
      auth: "key",
      version: 1,
      latest_version: 1,
      entrypoint: "index.ts",
      limits: { memory_mb: 128, cpu_time_ms: 50, wall_time_ms: 30_000 },
      invoke_path: "/v1/functions/hello/invoke",
      metadata: {},
    });
    expect(created.body.id).toMatch(/^fn_/);
    expect(created.body.bundle_bytes).toBeGreaterThan(0);
    const events = await eventsOf(org.id, "function.deployed");
    expect(events.at(-1)!.data.object).toMatchObject({ id: created.body.id, version: 1 });
  });

  it("makes each deploy a new immutable version, keeping auth and limits unless given", async () => {
    const first = await deploy({ name: "versions", auth: "public", limits: { cpu_time_ms: 20 } });
    expect(first.body).toMatchObject({
      version: 1,
      auth: "public",
      limits: { cpu_time_ms: 20, memory_mb: 128 },
    });
    expect(first.body.invoke_path).toBe(`/v1/functions/${first.body.id}/invoke`);
    const second = await deploy({
      name: "versions",
      files: { "index.ts": `export default () => new Response("v2")` },
      limits: { memory_mb: 64 },
    });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({
      id: first.body.id,
      version: 2,
      latest_version: 2,
      auth: "public",
      limits: { cpu_time_ms: 20, memory_mb: 64 },
    });
    const deployments = await t.request("GET", "/v1/functions/versions/deployments", { key: org.key });
    expect(deployments.status).toBe(200);
    expect(deployments.body.meta.total).toBe(2);
    expect(
      deployments.body.data.map((d: { version: number; active: boolean }) => [d.version, d.active]),
    ).toEqual([
      [2, true],
      [1, false],
    ]);
    expect(deployments.body.data[0]).toMatchObject({
      object: "function_deployment",
      files: [{ path: "index.ts", bytes: expect.any(Number) }],
    });
    expect(deployments.body.data[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    const one = await t.request("GET", "/v1/functions/versions/deployments/1", { key: org.key });
    expect(one.body).toMatchObject({ version: 1, active: false, limits: { memory_mb: 128 } });
    expect((await t.request("GET", "/v1/functions/versions/deployments/9", { key: org.key })).status).toBe(
      404,
    );
    expect((await t.request("GET", "/v1/functions/versions/deployments/x", { key: org.key })).status).toBe(
      404,
    );
  });

  it("rolls back to the previous version, or a named one, with a function.deployed event", async () => {
    await deploy({ name: "rollme" });
    await deploy({ name: "rollme" });
    await deploy({ name: "rollme" });
    const back = await t.request("POST", "/v1/functions/rollme/rollback", { key: org.key });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ version: 2, latest_version: 3 });
    const event = (await eventsOf(org.id, "function.deployed")).at(-1)!;
    expect(event.data.object).toMatchObject({ name: "rollme", version: 2 });
    expect(event.data.previous_attributes).toEqual({ version: 3 });
    const forward = await t.request("POST", "/v1/functions/rollme/rollback", {
      key: org.key,
      body: { version: 3 },
    });
    expect(forward.body.version).toBe(3);
    const missing = await t.request("POST", "/v1/functions/rollme/rollback", {
      key: org.key,
      body: { version: 7 },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0].param).toBe("version");
    await deploy({ name: "single" });
    const none = await t.request("POST", "/v1/functions/single/rollback", { key: org.key });
    expect(none.status).toBe(409);
  });

  it("answers a compile error with 422 naming file:line:column, and stores nothing", async () => {
    const before = await countDeployments();
    const broken = await deploy({ name: "broken", files: { "index.ts": "export default {\n  fetch( {\n" } });
    expect(broken.status).toBe(422);
    expect(JSON.stringify(broken.body.errors)).toMatch(/index\.ts:\d+:\d+/);
    expect(await countDeployments()).toBe(before);
    expect((await t.request("GET", "/v1/functions/broken", { key: org.key })).status).toBe(404);
  });

  it.each([
    ["a bad name", { name: "Hello World" }, "name"],
    ["a name shaped like an id", { name: "fn_abc" }, "name"],
    ["no files", { name: "nofiles", files: {} }, "files"],
    ["a path escaping the folder", { name: "escape", files: { "../x.ts": HELLO } }, "files"],
    ["an unknown auth", { name: "auth", auth: "none" }, "auth"],
    [
      "memory over the operator's maximum",
      { name: "big", limits: { memory_mb: 100_000 } },
      "limits.memory_mb",
    ],
    ["an unknown field", { name: "extra", triggers: 3, colour: "red" }, ""],
  ])("refuses %s with 422", async (_, body, param) => {
    const before = await countDeployments();
    const response = await deploy(body);
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toMatch(/application\/problem\+json/);
    if (param) expect(response.body.errors.map((e: { param: string }) => e.param).join(" ")).toContain(param);
    expect(await countDeployments()).toBe(before);
  });

  it("takes uploads larger than the API's JSON limit, up to the upload limit (413 past it)", async () => {
    const padding = "x".repeat(1_500_000);
    const large = await deploy({
      name: "large",
      files: {
        "index.ts": `import text from "./data.json" with { type: "json" };\n${HELLO}`,
        "data.json": JSON.stringify(padding),
      },
    });
    expect(large.status).toBe(201);
    const tooLarge = await deploy({
      name: "huge",
      files: { "index.ts": HELLO, "pad.txt": "y".repeat(3_200_000) },
    });
    expect(tooLarge.status).toBe(413);
  });

  it("lists and gets by name or id; deletes with a function.deleted event", async () => {
    const created = await deploy({ name: "listed" });
    const list = await t.request("GET", "/v1/functions?q=listed", { key: org.key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((f: { name: string }) => f.name)).toEqual(["listed"]);
    const byId = await t.request("GET", `/v1/functions/${created.body.id}`, { key: org.key });
    expect(byId.body.name).toBe("listed");
    const sorted = await t.request("GET", "/v1/functions?sort=name&per_page=100", { key: org.key });
    const names = sorted.body.data.map((f: { name: string }) => f.name);
    expect(names).toEqual([...names].sort());
    expect((await t.request("GET", "/v1/functions?sort=size", { key: org.key })).status).toBe(400);

    const deleted = await t.request("DELETE", "/v1/functions/listed", { key: org.key });
    expect(deleted.status).toBe(204);
    expect((await t.request("GET", "/v1/functions/listed", { key: org.key })).status).toBe(404);
    const event = (await eventsOf(org.id, "function.deleted")).at(-1)!;
    expect(event.data.object).toMatchObject({ id: created.body.id, name: "listed" });
    const left = await t.store.query("SELECT 1 FROM function_deployments WHERE function_id = $1", [
      created.body.id,
    ]);
    expect(left).toHaveLength(0);
  });

  it("keeps secrets sealed: names and update times only, never values", async () => {
    await deploy({ name: "secretive" });
    const set = await t.request("PUT", "/v1/functions/secretive/secrets", {
      key: org.key,
      body: { API_TOKEN: "tok_live_very_secret", OTHER: "two" },
    });
    expect(set.status).toBe(200);
    expect(set.body.data.map((s: { name: string }) => s.name)).toEqual(["API_TOKEN", "OTHER"]);
    expect(JSON.stringify(set.body)).not.toContain("tok_live_very_secret");
    const rows = await t.store.query<{ value: string }>(
      "SELECT value FROM function_secrets WHERE org_id = $1 AND name = 'API_TOKEN'",
      [org.id],
    );
    expect(rows[0]!.value).not.toContain("tok_live_very_secret");

    const removed = await t.request("PUT", "/v1/functions/secretive/secrets", {
      key: org.key,
      body: { OTHER: null },
    });
    expect(removed.body.data.map((s: { name: string }) => s.name)).toEqual(["API_TOKEN"]);
    expect(
      (await t.request("DELETE", "/v1/functions/secretive/secrets/API_TOKEN", { key: org.key })).status,
    ).toBe(204);
    expect(
      (await t.request("DELETE", "/v1/functions/secretive/secrets/API_TOKEN", { key: org.key })).status,
    ).toBe(404);
    const listed = await t.request("GET", "/v1/functions/secretive/secrets", { key: org.key });
    expect(listed.body.data).toEqual([]);

    for (const body of [{ "1BAD": "x" }, {}, { OK: 5 }, { OK: "x".repeat(40_000) }]) {
      const refused = await t.request("PUT", "/v1/functions/secretive/secrets", { key: org.key, body });
      expect(refused.status).toBe(422);
    }
  });

  it("needs functions:read to read and functions:write to change", async () => {
    await deploy({ name: "scoped" });
    const readOnly = await org.addKey({ kind: "read_only" });
    const finance = await org.addKey({ kind: "engine", engines: ["finance"], access: "write" });
    expect((await t.request("GET", "/v1/functions/scoped", { key: readOnly })).status).toBe(200);
    const denied = await deploy({ name: "scoped" }, readOnly);
    expect(denied.status).toBe(403);
    expect(denied.headers.get("www-authenticate")).toContain('scope="functions:write"');
    expect((await t.request("GET", "/v1/functions", { key: finance })).status).toBe(403);
    expect(
      (await t.request("PUT", "/v1/functions/scoped/secrets", { key: readOnly, body: { A: "b" } })).status,
    ).toBe(403);
    expect((await t.request("GET", "/v1/functions")).status).toBe(401);
  });

  it("never shows or changes another organization's function, even one of the same name", async () => {
    const other = await t.newOrg();
    const mine = await deploy({ name: "shared-name" });
    const theirs = await deploy({ name: "shared-name" }, other.key);
    expect(theirs.body.version).toBe(1);
    expect(theirs.body.id).not.toBe(mine.body.id);
    for (const ref of ["shared-name", mine.body.id as string]) {
      const seen = await t.request("GET", `/v1/functions/${ref}`, { key: other.key });
      expect(seen.body.id ?? null).not.toBe(mine.body.id);
    }
    expect((await t.request("GET", `/v1/functions/${mine.body.id}`, { key: other.key })).status).toBe(404);
    expect((await t.request("DELETE", `/v1/functions/${mine.body.id}`, { key: other.key })).status).toBe(404);
    expect(
      (await t.request("POST", `/v1/functions/${mine.body.id}/rollback`, { key: other.key })).status,
    ).toBe(404);
    expect(
      (await t.request("PUT", `/v1/functions/${mine.body.id}/secrets`, { key: other.key, body: { A: "b" } }))
        .status,
    ).toBe(404);
    expect((await t.request("GET", `/v1/functions/${mine.body.id}/logs`, { key: other.key })).status).toBe(
      404,
    );
    expect((await t.request("GET", "/v1/functions/shared-name", { key: org.key })).body.id).toBe(
      mine.body.id,
    );
  });

  it("lists logs newest first, filtered by level and request id (400 on unknown levels)", async () => {
    const fn = await deploy({ name: "logged" });
    await t.store.query(
      `INSERT INTO function_logs (id, org_id, function_id, version, request_id, level, message, seq, created_at)
       VALUES ('flog_a' || $2, $1, $2, 1, 'req_1', 'log', 'first', 0, '2025-03-15T10:00:00Z'),
              ('flog_b' || $2, $1, $2, 1, 'req_1', 'error', 'second', 1, '2025-03-15T10:00:00Z'),
              ('flog_c' || $2, $1, $2, 1, 'req_2', 'warn', 'third', 0, '2025-03-15T10:00:01Z')`,
      [org.id, fn.body.id],
    );
    const all = await t.request("GET", "/v1/functions/logged/logs", { key: org.key });
    expect(all.body.data.map((l: { message: string }) => l.message)).toEqual(["third", "second", "first"]);
    expect(all.body.data[0]).toMatchObject({
      object: "function_log",
      request_id: "req_2",
      level: "warn",
      version: 1,
    });
    const errors = await t.request("GET", "/v1/functions/logged/logs?level=error,warn", { key: org.key });
    expect(errors.body.meta.total).toBe(2);
    const one = await t.request("GET", "/v1/functions/logged/logs?request_id=req_1&sort=created_at", {
      key: org.key,
    });
    expect(one.body.data.map((l: { message: string }) => l.message)).toEqual(["first", "second"]);
    expect((await t.request("GET", "/v1/functions/logged/logs?level=loud", { key: org.key })).status).toBe(
      400,
    );
  });

  it("purges log lines past the retention (TESSERA_FUNCTION_LOG_RETENTION_DAYS)", async () => {
    const fn = await deploy({ name: "retained" });
    await t.store.query(
      `INSERT INTO function_logs (id, org_id, function_id, version, request_id, level, message, seq, created_at)
       VALUES ('flog_old' || $2, $1, $2, 1, 'req_o', 'log', 'old', 0, '2025-03-01T00:00:00Z'),
              ('flog_new' || $2, $1, $2, 1, 'req_n', 'log', 'new', 0, '2025-03-14T00:00:00Z')`,
      [org.id, fn.body.id],
    );
    const [job] = functionJobs(t.config);
    await job!.run({ store: t.store, now: new Date("2025-03-15T10:00:00Z"), log: silentLogger });
    const left = await t.request("GET", "/v1/functions/retained/logs", { key: org.key });
    expect(left.body.data.map((l: { message: string }) => l.message)).toEqual(["new"]);
  });
});
