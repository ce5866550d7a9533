import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig, randomBase62, silentLogger } from "../../core/index.ts";
import { createApiKey, createOrganization, OPERATOR } from "../../engines/index.ts";
import { startServer, type RunningServer } from "../../main.ts";
import { migrate, type Store } from "../../store/index.ts";
import { TEST_SECRET } from "../helpers/app.ts";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../helpers/otlp.ts";
import { openMigratedPglite } from "../helpers/pglite-image.ts";
import { startReceiver, type Receiver } from "../helpers/webhooks.ts";

/**
 * OpenTelemetry traces of a real server (`startServer`, every role), exported over OTLP/HTTP in
 * JSON to a receiver in this process that decodes them: the spans, their parents and links, the
 * `traceparent` the server sends on, and that no secret is in any of it (docs/tracing.md).
 */

const SERVER = 2;
const CLIENT = 3;
const FUNCTION_SECRET = `fn_secret_${randomBase62(24)}`;
const HEADER_SECRET = `header_secret_${randomBase62(24)}`;
const HOOK_TOKEN = `hook_token_${randomBase62(24)}`;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe("OpenTelemetry traces", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tessera-tracing-"));
  let collector: OtlpReceiver;
  let target: Receiver;
  let store: Store;
  let server: RunningServer;
  let org: { id: string; key: string };
  /** Every secret the tests hand the server: none may reach the collector. */
  const secrets = [FUNCTION_SECRET, HEADER_SECRET, HOOK_TOKEN, TEST_SECRET];

  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${org.key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const childrenOf = (parent: ReceivedSpan) =>
    collector.spans.filter((span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId);
  const serverSpan = (name: string) => (span: ReceivedSpan) => span.kind === SERVER && span.name === name;

  beforeAll(async () => {
    // The SDK's batch processor reads its own variable: spans leave within 50 ms, not 5 s.
    vi.stubEnv("OTEL_BSP_SCHEDULE_DELAY", "50");
    collector = await startOtlpReceiver();
    target = await startReceiver();
    store = await openMigratedPglite();
    await migrate(store);
    const config = loadConfig({
      PORT: "0",
      TESSERA_DATA_DIR: dataDir,
      TESSERA_SECRET: TEST_SECRET,
      TESSERA_ALLOW_PRIVATE_TARGETS: "1",
      TESSERA_ALLOW_HTTP_TARGETS: "1",
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "tessera-test",
      TESSERA_TRACE_QUERY_MIN_MS: "0",
    });
    server = await startServer({ config, log: silentLogger, store, print: () => {} });
    const created = await createOrganization(store, { name: `test-${randomBase62(10)}`, plan: "enterprise" });
    const key = await createApiKey(store, created.id, { kind: "full_access" }, OPERATOR);
    org = { id: created.id, key: key.secret };
    secrets.push(key.secret);
  }, 60_000);

  afterAll(async () => {
    await server?.dispose();
    await store?.dispose();
    await target?.close();
    await collector?.close();
    rmSync(dataDir, { recursive: true, force: true });
    vi.unstubAllEnvs();
  });

  it("makes an API request a server span with its route, status and organization, its store queries its children", async () => {
    expect((await call("POST", "/v1/contacts", { name: "Ada Lovelace" })).status).toBe(201);
    const request = await collector.waitForSpan(serverSpan("POST /v1/contacts"));
    expect(request.parentSpanId).toBe("");
    expect(request.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.route": "/v1/contacts",
      "http.response.status_code": 201,
      "tessera.organization_id": org.id,
    });
    expect(request.attributes["tessera.request_id"]).toMatch(/^req_/);
    const insert = await collector.waitForSpan(
      (span) => span.parentSpanId === request.spanId && span.attributes["db.collection.name"] === "contacts",
    );
    expect(insert).toMatchObject({ traceId: request.traceId, kind: CLIENT });
    const queries = childrenOf(request).filter((span) => span.attributes["db.system.name"] === "postgresql");
    expect(queries.map((span) => span.name)).toContain("INSERT contacts");
    for (const query of queries) {
      expect(query.name).toBe(query.attributes["db.query.summary"]);
      expect(query.name).toMatch(/^[A-Z]+( [a-z_]+)?$/);
    }
  });

  it("continues the caller's trace when it sends a traceparent", async () => {
    const traceId = randomHex(32);
    const parentId = randomHex(16);
    const listed = await call("GET", "/v1/contacts?per_page=1", undefined, {
      traceparent: `00-${traceId}-${parentId}-01`,
    });
    expect(listed.status).toBe(200);
    const request = await collector.waitForSpan((span) => span.traceId === traceId && span.kind === SERVER);
    expect(request).toMatchObject({ name: "GET /v1/contacts", parentSpanId: parentId });
  });

  it("makes an invocation a child span of its request, and the function's fetch a child of that, sent with its traceparent", async () => {
    const code = `export default {
      async fetch(request, env) {
        const answer = await fetch("${target.url}/from-function?token=" + env.FUNCTION_SECRET, {
          headers: { authorization: "Bearer " + env.FUNCTION_SECRET, traceparent: "00-${"1".repeat(32)}-${"2".repeat(16)}-01" },
        });
        return Response.json({ status: answer.status });
      },
    };`;
    expect(
      (await call("POST", "/v1/functions", { name: "traced", files: { "index.js": code } })).status,
    ).toBe(201);
    const secretsSet = await call("PUT", "/v1/functions/traced/secrets", { FUNCTION_SECRET });
    expect(secretsSet.status).toBe(200);
    const invoked = await call("GET", "/v1/functions/traced/invoke");
    expect(invoked.status).toBe(200);
    expect(await invoked.json()).toEqual({ status: 200 });

    const sent = target.received.find((request) => request.path.startsWith("/from-function"))!;
    const [, traceId, parentId] = TRACEPARENT.exec(sent.headers.traceparent ?? "") ?? [];
    expect(traceId).toBeDefined();
    const outbound = await collector.waitForSpan((span) => span.spanId === parentId);
    expect(outbound).toMatchObject({ traceId, kind: CLIENT, name: "GET" });
    expect(outbound.attributes).toMatchObject({
      "http.request.method": "GET",
      "server.address": "127.0.0.1",
      "http.response.status_code": 200,
    });
    const invocation = await collector.waitForSpan((span) => span.spanId === outbound.parentSpanId);
    expect(invocation).toMatchObject({ traceId, name: "function.invoke" });
    expect(invocation.attributes).toMatchObject({
      "tessera.organization_id": org.id,
      "tessera.function.name": "traced",
      "tessera.function.version": 1,
      "faas.coldstart": true,
      "http.response.status_code": 200,
    });
    const request = await collector.waitForSpan((span) => span.spanId === invocation.parentSpanId);
    expect(request).toMatchObject({ traceId, kind: SERVER, name: "GET /v1/functions/:id/invoke" });
    expect(request.attributes["tessera.organization_id"]).toBe(org.id);
  });

  it("makes each webhook attempt a trace of its own, linked to the request that recorded the event, its traceparent on the POST", async () => {
    const endpoint = await call("POST", "/v1/webhook_endpoints", {
      url: `${target.url}/hook?token=${HOOK_TOKEN}`,
      event_types: ["contact.created"],
      headers: { "x-receiver-key": HEADER_SECRET },
    });
    expect(endpoint.status).toBe(201);
    const { secret } = (await endpoint.json()) as { secret: string };
    secrets.push(secret);
    const created = await call("POST", "/v1/contacts", { name: "Grace Hopper" });
    expect(created.status).toBe(201);
    const request = await collector.waitForSpan(
      (span) =>
        span.name === "POST /v1/contacts" &&
        span.attributes["tessera.request_id"] === created.headers.get("x-request-id"),
    );

    await target.waitFor(target.received.filter((r) => r.path.startsWith("/from-function")).length + 1);
    const delivered = target.received.find((r) => r.path.startsWith("/hook"))!;
    const [, traceId, parentId] = TRACEPARENT.exec(delivered.headers.traceparent ?? "") ?? [];
    const attempt = await collector.waitForSpan((span) => span.spanId === parentId);
    expect(attempt).toMatchObject({ traceId, name: "webhook.deliver", kind: CLIENT, parentSpanId: "" });
    expect(traceId).not.toBe(request.traceId);
    expect(attempt.links).toEqual([{ traceId: request.traceId, spanId: request.spanId }]);
    expect(attempt.attributes).toMatchObject({
      "tessera.organization_id": org.id,
      "tessera.event.type": "contact.created",
      "tessera.webhook.attempt": 1,
      "http.response.status_code": 200,
      "tessera.webhook.outcome": "succeeded",
      "server.address": "127.0.0.1",
    });
  });

  it("makes SYNC's tool calls children of the chat request", async () => {
    const asked = await call("POST", "/v1/sync/chat", { message: "how many contacts do we have?" });
    expect(asked.status).toBe(200);
    const request = await collector.waitForSpan(serverSpan("POST /v1/sync/chat"));
    const tool = await collector.waitForSpan(
      (span) => span.parentSpanId === request.spanId && span.name.startsWith("sync.tool "),
    );
    expect(tool.attributes).toMatchObject({
      "tessera.sync.tool.use": "read",
      "tessera.sync.planner": "builtin",
    });
    expect(tool.name).toBe(`sync.tool ${String(tool.attributes["tessera.sync.tool"])}`);
  });

  it("never exports a secret: not the API key, a function's secret, a webhook's secret, header or URL token", () => {
    expect(collector.bodies.length).toBeGreaterThan(0);
    for (const { path, text } of collector.bodies) {
      expect(path).toBe("/v1/traces");
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
    const values = collector.spans.flatMap((span) => Object.values(span.attributes).map(String));
    for (const value of values) {
      expect(value).not.toMatch(/sk_live_|whsec_|token=|Bearer/);
    }
  });
});

function randomHex(length: number): string {
  return Array.from({ length }, () => "0123456789abcdef"[Math.floor(Math.random() * 16)]).join("");
}
