import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../store/index.ts";
import { createTestApp, type TestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * Invocation through the whole API: auth, the three handler styles, the injected
 * context (user, engines, snapshot, platform.fetch, secrets), streaming, logs, faults
 * and tenancy. Real isolates, a real store.
 */

const ECHO = `
export default {
  async fetch(req, env, ctx) {
    const url = new URL(req.url);
    const body = req.method === "GET" || req.method === "HEAD" ? null : await req.text();
    console.log("echo", req.method, url.pathname);
    return Response.json(
      { method: req.method, path: url.pathname, search: url.search, body, user: ctx.user,
        secret: env.GREETING ?? null, header: req.headers.get("x-custom"), auth: req.headers.get("authorization") },
      { status: url.searchParams.has("created") ? 201 : 200, headers: { "x-fn": "echo" } },
    );
  },
};`;

const STYLES: Record<string, string> = {
  "deno-serve": `Deno.serve((req) => new Response("served " + new URL(req.url).pathname.split("/").pop()));`,
  "default-object": `export default { fetch: (req) => new Response("object " + req.method) };`,
  "default-function": `export default function (req, ctx) { return new Response("function " + (ctx.user ? "known" : "anonymous")); }`,
};

// Over HTTP, invocations take the socket adapter (api/invocation/node.ts); through app.request, the app's route (fetch.ts).
const CASES = storeKinds().flatMap((kind) => [
  { ...kind, via: "the app", http: false },
  { ...kind, via: "HTTP", http: true },
]);

describe.each(CASES)("function invocation on $name, through $via", (kind) => {
  let store: Store;
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;
  let target: Server;
  let targetUrl: string;

  beforeAll(async () => {
    store = await kind.open();
    t = await createTestApp(store, {
      http: kind.http,
      env: {
        TESSERA_FUNCTION_MAX_REQUEST_BYTES: "1000",
        TESSERA_FUNCTION_MAX_RESPONSE_BYTES: "2000",
        TESSERA_FUNCTION_CPU_TIME_MS: "200",
        // Only organizations on the free plan (made by the rate limit test) feel this.
        TESSERA_RATE_LIMITS: '{"free":{"limit":3,"window_s":60}}',
      },
    });
    org = await t.newOrg();
    other = await t.newOrg();
    target = createServer((req, res) => res.end(JSON.stringify({ reached: req.url })));
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    target.close();
    await t.dispose();
    await store.dispose();
  });

  const deploy = async (name: string, source: string, extra: Record<string, unknown> = {}, key = org.key) => {
    const response = await t.request("POST", "/v1/functions", {
      key,
      body: { name, files: { "index.ts": source }, ...extra },
    });
    expect(response.status, response.text).toBe(201);
    return response.body as { id: string; name: string; version: number };
  };
  const invoke = (path: string, options: Parameters<TestApp["request"]>[2] = {}, method = "GET") =>
    t.request(method, path, options);

  it.each(Object.entries(STYLES))("runs the %s handler style", async (name, source) => {
    await deploy(name, source);
    const response = await invoke(`/v1/functions/${name}/invoke/last`, { key: org.key });
    expect(response.status, response.text).toBe(200);
    expect(response.text).toMatch(/^(served last|object GET|function known)$/);
  });

  it("passes method, path below /invoke, query, headers and body; consumes the API key; shows ctx.user", async () => {
    await deploy("echo", ECHO);
    const response = await invoke(
      "/v1/functions/echo/invoke/a/b?x=1&created",
      { key: org.key, raw: "plain text body", headers: { "content-type": "text/plain", "x-custom": "yes" } },
      "POST",
    );
    expect(response.status).toBe(201);
    expect(response.headers.get("x-fn")).toBe("echo");
    expect(response.headers.get("x-request-id")).toBeTruthy();
    expect(response.headers.get("x-ratelimit-limit")).toBeTruthy();
    expect(response.body).toMatchObject({
      method: "POST",
      path: "/v1/functions/echo/invoke/a/b",
      search: "?x=1&created",
      body: "plain text body",
      header: "yes",
      auth: null,
      user: { type: "api_key", key_id: org.keyId, organization_id: org.id, scopes: ["*"] },
    });
  });

  it("answers with the platform's request id and rate-limit headers over the function's own", async () => {
    await deploy(
      "impostor",
      `export default () => new Response("hi", {
        headers: { "x-request-id": "fake", "X-RateLimit-Limit": "999", "x-fn": "kept", "connection": "close" },
      })`,
    );
    const response = await invoke("/v1/functions/impostor/invoke", {
      key: org.key,
      headers: { "x-request-id": "req-from-client" },
    });
    expect(response.status).toBe(200);
    expect(response.text).toBe("hi");
    expect(response.headers.get("x-request-id")).toBe("req-from-client");
    expect(response.headers.get("x-ratelimit-limit")).not.toMatch(/999/);
    expect(response.headers.get("x-fn")).toBe("kept");
    expect(response.headers.get("content-type")).toBe("text/plain;charset=UTF-8");
  });

  it("sends a text body with exactly the function's headers: none added, a removed content-type stays away", async () => {
    await deploy(
      "bare-text",
      `export default () => { const r = new Response("naked é"); r.headers.delete("content-type"); return r; }`,
    );
    const response = await t.fetch("/v1/functions/bare-text/invoke", {
      headers: { authorization: `Bearer ${org.key}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBeNull();
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(new TextEncoder().encode("naked é"));
  });

  it("passes the function's headers as Fetch lists them (set-cookie apart), without hop-by-hop ones or its content-length", async () => {
    await deploy(
      "many-headers",
      `export default () => new Response("ok", { headers: [
        ["Set-Cookie", "a=1"], ["X-B", "two"], ["set-cookie", "b=2"], ["x-b", "three"], ["X-A", "one"],
        ["Connection", "close"], ["Proxy-Connection", "close"], ["TE", "trailers"], ["Content-Length", "99"],
      ] });`,
    );
    const response = await t.fetch("/v1/functions/many-headers/invoke", {
      headers: { authorization: `Bearer ${org.key}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(response.headers.get("x-b")).toBe("two, three");
    expect(response.headers.get("x-a")).toBe("one");
    expect(response.headers.get("connection")).not.toBe("close");
    expect(response.headers.get("proxy-connection")).toBeNull();
    expect(response.headers.get("te")).toBeNull();
    expect(await response.text()).toBe("ok");
    expect(response.headers.get("content-length") ?? "2").toBe("2");
  });

  it("keeps logs per invocation with the request id", async () => {
    await deploy("logger", ECHO);
    const response = await invoke("/v1/functions/logger/invoke/x", { key: org.key });
    const requestId = response.headers.get("x-request-id")!;
    let lines: Array<{ message: string; level: string; request_id: string }> = [];
    for (let i = 0; i < 50 && lines.length === 0; i++) {
      lines = (await t.request("GET", `/v1/functions/logger/logs?request_id=${requestId}`, { key: org.key }))
        .body.data;
      if (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(lines).toEqual([
      expect.objectContaining({ level: "log", message: "echo GET /v1/functions/logger/invoke/x" }),
    ]);
  });

  it("cancels the stream of a HEAD answer at once: the function's request ends without waiting for its wall time", async () => {
    await deploy(
      "endless",
      `export default () => new Response(new ReadableStream({
        pull() { return new Promise(() => {}); },
        cancel() { console.log("cancelled"); },
      }))`,
    );
    const response = await t.fetch("/v1/functions/endless/invoke", {
      method: "HEAD",
      headers: { authorization: `Bearer ${org.key}` },
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
    const requestId = response.headers.get("x-request-id")!;
    let lines: Array<{ message: string }> = [];
    for (let i = 0; i < 100 && lines.length === 0; i++) {
      lines = (await t.request("GET", `/v1/functions/endless/logs?request_id=${requestId}`, { key: org.key }))
        .body.data;
      if (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(lines.map((line) => line.message)).toEqual(["cancelled"]);
  });

  it("needs functions:read for a private function; a public one answers anyone, by id", async () => {
    await deploy("private", ECHO);
    const noKey = await invoke("/v1/functions/private/invoke");
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get("www-authenticate")).toBe('Bearer realm="tessera"');
    const badKey = await invoke("/v1/functions/private/invoke", {
      key: "sk_live_notarealkey0000000000000000000000",
    });
    expect(badKey.status).toBe(401);
    const finance = await org.addKey({ kind: "engine", engines: ["finance"], access: "read" });
    expect((await invoke("/v1/functions/private/invoke", { key: finance })).status).toBe(403);
    const readOnly = await org.addKey({ kind: "read_only" });
    expect((await invoke("/v1/functions/private/invoke", { key: readOnly })).status).toBe(200);

    const pub = await deploy("public-echo", ECHO, { auth: "public" });
    const anonymous = await invoke(`/v1/functions/${pub.id}/invoke/hi`, {
      headers: { authorization: "Bearer their-own-token" },
    });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toMatchObject({
      user: null,
      auth: "Bearer their-own-token",
      path: `/v1/functions/${pub.id}/invoke/hi`,
    });
    // A name means something only within an organization: anonymous callers use the id.
    expect((await invoke("/v1/functions/public-echo/invoke")).status).toBe(401);
  });

  it("limits anonymous calls to a public function to its organization's plan, apart from keyed calls", async () => {
    const free = await t.newOrg({ plan: "free" });
    const neighbour = await t.newOrg({ plan: "free" });
    const fn = await deploy("public-limited", ECHO, { auth: "public" }, free.key);
    const theirs = await deploy("public-limited", ECHO, { auth: "public" }, neighbour.key);
    const call = (id = fn.id) => invoke(`/v1/functions/${id}/invoke`);
    const allowed = [await call(), await call(), await call()];
    expect(allowed.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(allowed[2]!.headers.get("x-ratelimit-limit")).toBe("3");
    expect(allowed[2]!.headers.get("x-ratelimit-remaining")).toBe("0");
    const refused = await call();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: "rate_limited" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another organization's public function, and the owner's own key, have budgets of their own.
    expect((await call(theirs.id)).status).toBe(200);
    expect((await invoke(`/v1/functions/${fn.id}/invoke`, { key: free.key })).status).toBe(200);
  });

  it("gives another organization 404 for a private function, by name or id", async () => {
    const fn = await deploy("mine-only", ECHO);
    for (const ref of ["mine-only", fn.id]) {
      const response = await invoke(`/v1/functions/${ref}/invoke`, { key: other.key });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe("not_found");
    }
  });

  it("lets the same function name in two organizations see only its own data", async () => {
    const source = `
export default {
  async fetch(req, env, ctx) {
    const url = new URL(req.url);
    if (req.method === "POST") await ctx.engines.growth.set("owner", await req.text());
    const invoices = await (await ctx.platform.fetch("/v1/invoices?per_page=100")).json();
    return Response.json({ owner: await ctx.engines.growth.get("owner"), invoices: invoices.data.map((i) => i.client) });
  },
};`;
    await deploy("tenant", source);
    await deploy("tenant", source, {}, other.key);
    for (const [o, client] of [
      [org, "Acme Mine"],
      [other, "Globex Theirs"],
    ] as const) {
      const created = await t.request("POST", "/v1/invoices", {
        key: o.key,
        body: { client, amount: 10, currency: "EUR", due_date: "2030-01-01" },
      });
      expect(created.status, created.text).toBe(201);
      const set = await invoke("/v1/functions/tenant/invoke", { key: o.key, raw: o.id }, "POST");
      expect(set.status, set.text).toBe(200);
    }
    const mine = await invoke("/v1/functions/tenant/invoke", { key: org.key });
    expect(mine.body.owner).toBe(org.id);
    expect(mine.body.invoices).toContain("Acme Mine");
    expect(mine.body.invoices).not.toContain("Globex Theirs");
    const theirs = await invoke("/v1/functions/tenant/invoke", { key: other.key });
    expect(theirs.body.owner).toBe(other.id);
    expect(theirs.body.invoices).toEqual(["Globex Theirs"]);
    // The same store is the API's /v1/engines/{engine}/state.
    const state = await t.request("GET", "/v1/engines/growth/state/owner", { key: org.key });
    expect(state.body.value).toBe(org.id);
  });

  it("offers every engine's state, sync included, as the API does", async () => {
    await deploy(
      "engines",
      `export default { async fetch(req, env, ctx) {
        await ctx.engines.sync.set("cursor", 7);
        return Response.json({ engines: Object.keys(ctx.engines), cursor: await ctx.engines.sync.get("cursor") });
      } };`,
    );
    const response = await invoke("/v1/functions/engines/invoke", { key: org.key });
    expect(response.body).toEqual({ engines: ["finance", "growth", "talent", "sync"], cursor: 7 });
    expect((await t.request("GET", "/v1/engines/sync/state/cursor", { key: org.key })).body.value).toBe(7);
  });

  it("calls the API as the caller: a read-only caller cannot write through platform.fetch", async () => {
    await deploy(
      "writer",
      `export default { async fetch(req, env, ctx) {
        const r = await ctx.platform.fetch("/v1/contacts", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "Via Function" }) });
        return new Response(String(r.status));
      } };`,
    );
    const readOnly = await org.addKey({ kind: "read_only" });
    expect((await invoke("/v1/functions/writer/invoke", { key: readOnly })).text).toBe("403");
    expect((await invoke("/v1/functions/writer/invoke", { key: org.key })).text).toBe("201");
  });

  it("injects the latest intelligence snapshot as ctx.snapshot", async () => {
    await deploy(
      "snap",
      `export default function (req, ctx) { return Response.json({ id: ctx.snapshot?.id ?? null, contacts: ctx.snapshot?.growth?.contacts ?? null }); }`,
    );
    const refreshed = await t.request("POST", "/v1/intelligence/snapshots", { key: other.key });
    expect(refreshed.status, refreshed.text).toBe(201);
    const response = await invoke("/v1/functions/snap/invoke", { key: other.key });
    // Deployed in org, so other gets 404; deploy there too.
    expect(response.status).toBe(404);
    await deploy(
      "snap",
      `export default function (req, ctx) { return Response.json({ id: ctx.snapshot?.id ?? null }); }`,
      {},
      other.key,
    );
    const seen = await invoke("/v1/functions/snap/invoke", { key: other.key });
    expect(seen.body.id).toBe(refreshed.body.id);
  });

  it("shows secrets as Deno.env and env, and a change reaches the next request", async () => {
    await deploy(
      "env",
      `export default { fetch: (req, env) => Response.json({ deno: Deno.env.get("GREETING") ?? null, env: env.GREETING ?? null }) };`,
    );
    expect((await invoke("/v1/functions/env/invoke", { key: org.key })).body).toEqual({
      deno: null,
      env: null,
    });
    await t.request("PUT", "/v1/functions/env/secrets", { key: org.key, body: { GREETING: "hello" } });
    expect((await invoke("/v1/functions/env/invoke", { key: org.key })).body).toEqual({
      deno: "hello",
      env: "hello",
    });
  });

  it("serves the rolled-back version at once", async () => {
    await deploy("versioned", `export default () => new Response("one")`);
    await deploy("versioned", `export default () => new Response("two")`);
    expect((await invoke("/v1/functions/versioned/invoke", { key: org.key })).text).toBe("two");
    await t.request("POST", "/v1/functions/versioned/rollback", { key: org.key });
    expect((await invoke("/v1/functions/versioned/invoke", { key: org.key })).text).toBe("one");
  });

  it("streams a response body chunk by chunk", async () => {
    await deploy(
      "stream",
      `export default () => {
        let i = 0;
        const body = new ReadableStream({
          async pull(controller) {
            await new Promise((r) => setTimeout(r, 5));
            if (i === 3) return controller.close();
            controller.enqueue(new TextEncoder().encode("line " + i++ + "\\n"));
          },
        });
        return new Response(body, { headers: { "content-type": "text/plain" } });
      }`,
    );
    const response = await t.fetch("/v1/functions/stream/invoke", {
      headers: { authorization: `Bearer ${org.key}` },
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const chunks: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(new TextDecoder().decode(value));
    }
    expect(chunks.join("")).toBe("line 0\nline 1\nline 2\n");
    expect(chunks.length).toBeGreaterThan(1);
  });

  it("refuses outbound fetch to private addresses; the function sees an error, the service carries on", async () => {
    await deploy(
      "fetcher",
      `export default async (req) => {
        try { const r = await fetch(new URL(req.url).searchParams.get("to")); return new Response(await r.text()); }
        catch (error) { return new Response("refused: " + error.message, { status: 502 }); }
      }`,
    );
    const response = await invoke(`/v1/functions/fetcher/invoke?to=${encodeURIComponent(targetUrl + "/x")}`, {
      key: org.key,
    });
    expect(response.status).toBe(502);
    expect(response.text).toMatch(/refused: .*(private|blocked|not allowed)/i);
  });

  it("fails a response body over TESSERA_FUNCTION_MAX_RESPONSE_BYTES: whole with a 500, streamed cut off", async () => {
    await deploy("big", `export default (req) => new Response("x".repeat(3000))`);
    const whole = await invoke("/v1/functions/big/invoke", { key: org.key });
    expect(whole.status).toBe(500);
    expect(whole.body.code).toBe("function_failed");
    expect(whole.body.detail).toMatch(/exceeds 2000 bytes/);
    await deploy(
      "big-stream",
      `export default () => new Response(new ReadableStream({
        start(c) { for (let i = 0; i < 3; i++) c.enqueue(new TextEncoder().encode("y".repeat(1000))); c.close(); },
      }))`,
    );
    const streamed = await t.fetch("/v1/functions/big-stream/invoke", {
      headers: { authorization: `Bearer ${org.key}` },
    });
    expect(streamed.status).toBe(200);
    let received = 0;
    await expect(
      (async () => {
        for await (const chunk of streamed.body!) received += (chunk as Uint8Array).byteLength;
      })(),
    ).rejects.toThrow(kind.http ? /terminated|closed|aborted/i : /exceeds 2000 bytes/);
    expect(received).toBeLessThanOrEqual(2000);
  });

  it("answers 413 for a request body over the function limit", async () => {
    await deploy("small", ECHO);
    const response = await invoke(
      "/v1/functions/small/invoke",
      { key: org.key, raw: "x".repeat(2000) },
      "POST",
    );
    expect(response.status).toBe(413);
  });

  it("fails only the looping request with function_cpu_limit; the next gets a fresh isolate", async () => {
    await deploy(
      "spin",
      `export default (req) => { if (new URL(req.url).searchParams.has("loop")) { while (true) {} } return new Response("fine"); }`,
    );
    const looped = await invoke("/v1/functions/spin/invoke?loop", { key: org.key });
    expect(looped.status).toBe(500);
    expect(looped.headers.get("content-type")).toMatch(/application\/problem\+json/);
    expect(looped.body.code).toBe("function_cpu_limit");
    expect((await invoke("/v1/functions/spin/invoke", { key: org.key })).text).toBe("fine");
    expect((await invoke("/v1/functions/echo/invoke", { key: org.key })).status).toBe(200);
    expect((await t.request("GET", "/v1/me", { key: org.key })).status).toBe(200);
  });

  it("answers a function that throws with a 500 problem naming function_failed", async () => {
    await deploy("thrower", `export default () => { throw new Error("boom"); }`);
    const response = await invoke("/v1/functions/thrower/invoke", { key: org.key });
    expect(response.status).toBe(500);
    expect(response.body).toMatchObject({ code: "function_failed" });
    expect(response.text).not.toMatch(/at .*\.ts:\d+/); // no host stack frames
  });
});

describe("outbound fetch with private targets allowed (development)", () => {
  it("reaches a local server", async () => {
    const [kind] = storeKinds();
    const store = await kind!.open();
    const t = await createTestApp(store, { env: { TESSERA_ALLOW_PRIVATE_TARGETS: "1" } });
    const server = createServer((req, res) =>
      res.end(JSON.stringify({ reached: req.url, ua: req.headers["user-agent"] })),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const org = await t.newOrg();
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hello`;
      const deployed = await t.request("POST", "/v1/functions", {
        key: org.key,
        body: {
          name: "reach",
          files: { "index.ts": `export default async () => fetch(${JSON.stringify(url)})` },
        },
      });
      expect(deployed.status, deployed.text).toBe(201);
      const response = await t.request("GET", "/v1/functions/reach/invoke", { key: org.key });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({ reached: "/hello", ua: "Tessera-Functions/1" });
    } finally {
      server.close();
      await t.dispose();
      await store.dispose();
    }
  });
});
