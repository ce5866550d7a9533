import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { loadConfig, randomBase62, silentLogger } from "../../core/index.ts";
import { createApiKey, createOrganization, OPERATOR } from "../../engines/index.ts";
import { startServer, type RunningServer } from "../../main.ts";
import type { Store } from "../../store/index.ts";
import { OWN_COOKIES, PLATFORM_COOKIES } from "../fixtures/functions/sets-platform-cookies/index.ts";
import { TEST_SECRET, useTestApp, type TestApp, type TestOrg } from "../helpers/app.ts";
import { signedInMember, type TestMember } from "../helpers/members.ts";
import { freePort } from "../helpers/ports.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * A tenant's function never acts as a page of the dashboard's origin (ARCHITECTURE.md, "Security
 * model"). Organization B deploys hostile public functions (test/fixtures/functions/); A's
 * signed-in owner opens them, as a link would make them. The function must not get the owner's
 * session (in what it sees or what it logs), must not set or clear the platform's cookies, and
 * its page on the dashboard's origin is a sandbox. With TESSERA_FUNCTIONS_URL, functions have an
 * origin of their own where the dashboard does not exist.
 */

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/functions/${name}/index.ts`, import.meta.url), "utf8");

/** The owner's session under every name a browser could hold it, beside a cookie of nobody's. */
function ownersCookies(owner: TestMember): string {
  return [
    owner.cookie,
    "theme=dark",
    `__Host-tessera_session=${owner.token}`,
    `__Secure-tessera_session=${owner.token}`,
    `tessera_csrf=${owner.csrf}`,
  ].join("; ");
}

/** A GET with any `Host` (fetch may not set one), as a browser sends to a name that resolves here. */
function get(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** The first message of a WebSocket, and its close. */
async function firstMessage(url: string, headers: Record<string, string>): Promise<string> {
  const ws = new WebSocket(url, { headers });
  const message = await new Promise<string>((resolve, reject) => {
    ws.once("message", (data: Buffer) => resolve(data.toString("utf8")));
    ws.once("unexpected-response", (_req, res) => reject(new Error(`refused ${res.statusCode}`)));
    ws.once("error", reject);
  });
  ws.close();
  await new Promise((resolve) => ws.once("close", resolve));
  return message;
}

async function deploy(
  t: TestApp,
  org: TestOrg,
  name: string,
  source: string,
  auth: "public" | "key" = "public",
): Promise<string> {
  const response = await t.request("POST", "/v1/functions", {
    key: org.key,
    // A generous CPU budget: these probes are about headers, and a busy machine must not fail them on 50 ms.
    body: { name, auth, files: { "index.ts": source }, limits: { cpu_time_ms: 1_000 } },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.id as string;
}

/** What the function logged for one request, as its organization reads it (written after the answer). */
async function logsOf(t: TestApp, org: TestOrg, name: string, requestId: string): Promise<string[]> {
  let lines: string[] = [];
  await expect
    .poll(
      async () => {
        const page = await t.request("GET", `/v1/functions/${name}/logs?request_id=${requestId}`, {
          key: org.key,
        });
        lines = (page.body.data as Array<{ message: string }>).map((line) => line.message);
        return lines.length;
      },
      { timeout: 10_000 },
    )
    .toBeGreaterThan(0);
  return lines;
}

const CASES = storeKinds().flatMap((kind) => [
  { ...kind, via: "the socket adapter", http: true },
  { ...kind, via: "the Fetch adapter", http: false },
]);

describe.each(CASES)("a hostile public function on $name, through $via", (kind) => {
  const t = useTestApp(kind, { http: kind.http });
  let victim: TestOrg;
  let attacker: TestOrg;
  let owner: TestMember;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    victim = await t.newOrg();
    attacker = await t.newOrg();
    owner = await signedInMember(t, victim.id, "owner");
    for (const name of ["echoes-cookies", "sets-platform-cookies", "steals-from-dashboard"]) {
      ids[name] = await deploy(t, attacker, name, fixture(name));
    }
  });

  it("never hands the function the owner's session cookies: not in what it sees, not in its logs", async () => {
    const response = await t.fetch(`/v1/functions/${ids["echoes-cookies"]}/invoke`, {
      headers: { cookie: ownersCookies(owner) },
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(JSON.parse(text)).toEqual({ cookie: "theme=dark" });
    expect(text).not.toContain(owner.token);
    const logs = await logsOf(t, attacker, "echoes-cookies", response.headers.get("x-request-id")!);
    expect(logs).toEqual(["cookie: theme=dark"]);
    expect(logs.join("\n")).not.toContain(owner.token);
    // Only the platform's cookies go: without any, nothing of the header is left.
    const only = await t.fetch(`/v1/functions/${ids["echoes-cookies"]}/invoke`, {
      headers: { cookie: `${owner.cookie}; __Host-tessera_session=${owner.token}` },
    });
    expect(await only.json()).toEqual({ cookie: null });
  });

  it("keeps the function's Set-Cookie for the platform's cookies (and Clear-Site-Data) from the browser; its own pass", async () => {
    const response = await t.fetch(`/v1/functions/${ids["sets-platform-cookies"]}/invoke`, {
      headers: { cookie: owner.cookie },
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("welcome");
    expect(response.headers.getSetCookie()).toEqual(OWN_COOKIES);
    expect(response.headers.get("clear-site-data")).toBeNull();
    expect(PLATFORM_COOKIES.length).toBeGreaterThan(0);
    // The owner's session is still the owner's.
    const me = await t.request("GET", "/v1/me", { headers: { cookie: owner.cookie } });
    expect(me.status, me.text).toBe(200);
  });

  it("answers on the dashboard's origin as a sandbox: CSP sandbox over the function's own, and nosniff", async () => {
    const response = await t.fetch(`/v1/functions/${ids["steals-from-dashboard"]}/invoke`, {
      headers: { cookie: owner.cookie, accept: "text/html" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await response.text()).toContain("<script>");
    expect(response.headers.get("content-security-policy")).toBe("sandbox");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    // Every answer of a function there, whatever its type.
    const json = await t.fetch(`/v1/functions/${ids["echoes-cookies"]}/invoke`);
    expect(json.headers.get("content-security-policy")).toBe("sandbox");
    expect(json.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("strips the cookies from a request a function makes in-process (ctx.platform.fetch), and sandboxes its answer", async () => {
    await deploy(
      t,
      attacker,
      "relay",
      `export default { async fetch(req, env, ctx) {
        const r = await ctx.platform.fetch("/v1/functions/echoes-cookies/invoke", { headers: { cookie: req.headers.get("x-forward") } });
        return Response.json({ seen: await r.json(), csp: r.headers.get("content-security-policy") });
      } };`,
      "key",
    );
    const response = await t.request("GET", "/v1/functions/relay/invoke", {
      key: attacker.key,
      headers: { "x-forward": ownersCookies(owner) },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ seen: { cookie: "theme=dark" }, csp: "sandbox" });
  });

  it.runIf(kind.http)("never hands the owner's cookies to a function's WebSocket", async () => {
    const base = new URL((await t.fetch("/healthz")).url);
    const message = await firstMessage(`ws://${base.host}/v1/functions/${ids["echoes-cookies"]}/invoke`, {
      cookie: ownersCookies(owner),
    });
    expect(JSON.parse(message)).toEqual({ cookie: "theme=dark" });
  });
});

describe.each(storeKinds())("TESSERA_FUNCTIONS_URL on a port of its own, on $name", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "tessera-functions-origin-"));
  let store: Store;
  let server: RunningServer;
  let functionsUrl: string;
  let org: { id: string; key: string };
  /** A session cookie as a browser holds it for 127.0.0.1, whatever the port. */
  const session = `tessera_session=${"a".repeat(43)}`;
  let fn: string;
  let page: string;
  const printed: string[] = [];

  beforeAll(async () => {
    store = await kind.open();
    functionsUrl = `http://127.0.0.1:${await freePort()}`;
    const config = loadConfig({
      PORT: "0",
      TESSERA_DATA_DIR: dataDir,
      TESSERA_SECRET: TEST_SECRET,
      TESSERA_FUNCTIONS_URL: functionsUrl,
    });
    // The real `serve` (main.ts): both listeners, registered for teardown.
    server = await startServer({ config, log: silentLogger, store, print: (line) => printed.push(line) });
    const created = await createOrganization(store, { name: `test-${randomBase62(10)}`, plan: "enterprise" });
    const key = await createApiKey(store, created.id, { kind: "full_access" }, OPERATOR);
    org = { id: created.id, key: key.secret };
    const deployOne = async (name: string) => {
      const response = await fetch(`${server.url}/v1/functions`, {
        method: "POST",
        headers: { authorization: `Bearer ${org.key}`, "content-type": "application/json" },
        body: JSON.stringify({ name, auth: "public", files: { "index.ts": fixture(name) } }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    fn = await deployOne("echoes-cookies");
    page = await deployOne("steals-from-dashboard");
  }, 60_000);
  afterAll(async () => {
    await server?.dispose();
    await store?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves invocations on that port, without the platform's cookies, as the function answered", async () => {
    expect(printed.join("\n")).toContain(`functions served at ${functionsUrl}`);
    const response = await fetch(`${functionsUrl}/v1/functions/${fn}/invoke`, {
      headers: { cookie: `${session}; theme=dark` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ cookie: "theme=dark" });
    // Its own origin holds no page of the dashboard: the function's CSP stands, nothing is added.
    const html = await fetch(`${functionsUrl}/v1/functions/${page}/invoke`);
    expect(html.status).toBe(200);
    expect(html.headers.get("content-security-policy")).toBe("script-src 'unsafe-inline'; connect-src *");
    expect(html.headers.get("x-content-type-options")).toBeNull();
    const ws = functionsUrl.replace(/^http/, "ws");
    expect(JSON.parse(await firstMessage(`${ws}/v1/functions/${fn}/invoke`, { cookie: session }))).toEqual({
      cookie: null,
    });
  });

  it("is 404 there for everything else: the dashboard, /v1, /docs, metrics; health probes answer", async () => {
    for (const path of [
      "/",
      "/sign-in",
      "/settings/api-keys",
      "/v1/me",
      "/v1/functions",
      "/docs",
      "/metrics",
    ]) {
      const response = await fetch(`${functionsUrl}${path}`, {
        headers: { authorization: `Bearer ${org.key}` },
        redirect: "manual",
      });
      expect([path, response.status]).toEqual([path, 404]);
      await response.arrayBuffer();
    }
    expect((await fetch(`${functionsUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/sign-in`)).status).toBe(200);
  });

  it("still serves invocations on the main origin, sandboxed", async () => {
    const response = await fetch(`${server.url}/v1/functions/${page}/invoke`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toBe("sandbox");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    await response.arrayBuffer();
  });
});

describe.each(storeKinds())("TESSERA_FUNCTIONS_URL naming a host of its own, on $name", (kind) => {
  const t = useTestApp(kind, {
    http: true,
    env: { TESSERA_FUNCTIONS_URL: "https://functions.example.test" },
  });
  let org: TestOrg;
  let fn: string;
  let base: URL;

  beforeAll(async () => {
    org = await t.newOrg();
    fn = await deploy(t, org, "steals-from-dashboard", fixture("steals-from-dashboard"));
    base = new URL((await t.fetch("/healthz")).url);
  });

  it("shows a function's URL on the functions origin in the dashboard", async () => {
    const owner = await signedInMember(t, org.id, "owner");
    const page = await t.request("GET", "/functions/steals-from-dashboard", {
      headers: { cookie: owner.cookie },
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<code>https://functions.example.test/v1/functions/${fn}/invoke</code>`);
  });

  it("serves the functions host only its invocations, unsandboxed; the dashboard's host as before", async () => {
    const url = (path: string) => `http://${base.host}${path}`;
    const onFunctions = await get(url(`/v1/functions/${fn}/invoke`), { host: "functions.example.test" });
    expect(onFunctions.status).toBe(200);
    expect(onFunctions.headers["content-security-policy"]).toBe("script-src 'unsafe-inline'; connect-src *");
    expect((await get(url("/sign-in"), { host: "Functions.Example.Test:443" })).status).toBe(404);
    expect((await get(url("/settings/api-keys"), { host: "functions.example.test" })).status).toBe(404);
    const onMain = await get(url(`/v1/functions/${fn}/invoke`), { host: base.host });
    expect(onMain.headers["content-security-policy"]).toBe("sandbox");
    expect((await get(url("/sign-in"), { host: base.host })).status).toBe(200);
  });
});
