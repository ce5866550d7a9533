import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { createLogger, MAX_JSON_DEPTH, randomBase62, type LogFields } from "../../core/index.ts";
import { useTestApp, type TestApp, type TestOrg, type TestResponse } from "../helpers/app.ts";
import { prepareRefs, RESOURCE_CASES } from "../helpers/resource-cases.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * Input of any shape, sent as an attacker would to every operation of the OpenAPI document that
 * takes a JSON body: nesting 100,000 deep, 100,000 keys or items, `__proto__` and friends as
 * keys, 100,000 bad values. Each answer is a 4xx (or a success), never a 5xx, and stays small
 * whatever was sent. A body that never completes is the client's doing: a 499 in the request log
 * and metrics, never a 500 or an error-level log line.
 */

interface Operation {
  id: string;
  method: string;
  path: string;
  /** A field of the operation's body schema (metadata when it has one): where nesting is put. */
  field: string;
  hasMetadata: boolean;
}

interface SchemaObject {
  $ref?: string;
  properties?: Record<string, unknown>;
}

/** Every operation of the committed OpenAPI document with a JSON request body. */
function jsonBodyOperations(): Operation[] {
  const doc = JSON.parse(readFileSync(new URL("../../openapi/openapi.json", import.meta.url), "utf8")) as {
    paths: Record<string, Record<string, { operationId: string; requestBody?: { content: object } }>>;
    components: { schemas: Record<string, SchemaObject> };
  };
  const resolve = (schema: SchemaObject) =>
    schema.$ref ? doc.components.schemas[schema.$ref.split("/").pop()!]! : schema;
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, operation]) => {
      const content = operation.requestBody?.content as
        Record<string, { schema: SchemaObject } | undefined> | undefined;
      const json = content?.["application/json"];
      if (!json) return [];
      const fields = Object.keys(resolve(json.schema).properties ?? {});
      const hasMetadata = fields.includes("metadata");
      const field = hasMetadata ? "metadata" : (fields[0] ?? "NESTED");
      return [{ id: operation.operationId, method: method.toUpperCase(), path, field, hasMetadata }];
    }),
  );
}

const OPERATIONS = jsonBodyOperations();
const DEEP = 100_000;
const WIDE = 100_000;
/** An answer to any of these bodies fits in this, however large the body. */
const MAX_ANSWER_BYTES = 32 * 1024;

const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
/** `{"0":v,"1":v,…}` with base-36 keys: 100,000 of them stay under the 1 MiB body limit. */
const wideObject = (n: number, value: string) =>
  `{${Array.from({ length: n }, (_, i) => `"${i.toString(36)}":${value}`).join(",")}}`;
const wideArray = (n: number, item: string) => `[${Array.from({ length: n }, () => item).join(",")}]`;
const DEEP_ARRAYS = deepArray(DEEP);
const DEEP_OBJECTS = deepObject(DEEP);
/** Valid keys and values (cheap for a schema to refuse as a whole), and items. */
const WIDE_KEYS = wideObject(WIDE, '""');
const WIDE_ITEMS = wideArray(WIDE, "0");
/** `depth` arrays around a 1, as a value (small enough for JSON.stringify). */
const nest = (depth: number): unknown => (depth === 0 ? 1 : [nest(depth - 1)]);

function expectSmallRefusal(response: TestResponse, what: string): void {
  expect(response.status, `${what}: ${response.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(response.status, `${what}: ${response.text.slice(0, 300)}`).toBeLessThan(500);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect(Buffer.byteLength(response.text), what).toBeLessThan(MAX_ANSWER_BYTES);
}

describe.each(storeKinds())("input bounds on $name", (kind) => {
  const t = useTestApp(kind);
  let org: TestOrg;
  /** A real object for each `{id}` in a path, by the path's first segment under /v1. */
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t.clock.set("2025-03-15T10:00:00Z");
    org = await t.newOrg();
    for (const rc of RESOURCE_CASES) {
      const refs = await prepareRefs(rc, t, org.key);
      ids[rc.resource] = await created(t, org, `/v1/${rc.resource}`, rc.create(0, "Bounds", refs));
    }
    ids.oauth_apps = await created(t, org, "/v1/oauth_apps", {
      name: "Bounds",
      redirect_uris: ["https://integration.example/callback"],
      scopes: ["finance:read"],
    });
    ids.webhook_endpoints = await created(t, org, "/v1/webhook_endpoints", {
      url: "https://hooks.example.com/tessera",
    });
    ids.functions = await created(t, org, "/v1/functions", {
      name: "bounds",
      files: { "index.ts": `export default { fetch: () => new Response("ok") };` },
    });
  });

  const resourceOf = (op: Operation) => op.path.split("/")[2]!;
  const pathOf = (op: Operation) => {
    return op.path
      .replace("{id}", ids[resourceOf(op)] ?? "")
      .replace("{engine}", "finance")
      .replace("{key}", "bounds");
  };
  const send = (op: Operation, raw: string) =>
    t.request(op.method, pathOf(op), { key: org.key, raw, headers: { "content-type": "application/json" } });

  it("covers every operation with a JSON body", () => {
    expect(OPERATIONS.length).toBeGreaterThanOrEqual(29);
    const withoutObject = OPERATIONS.filter((op) => op.path.includes("{id}") && !ids[resourceOf(op)]);
    expect(withoutObject.map((op) => op.id)).toEqual([]);
  });

  describe.each(OPERATIONS)("$id ($method $path)", (op) => {
    it(`refuses a body nested ${DEEP.toLocaleString("en")} deep, at the top or in a field, with 422 too_deep`, async () => {
      const bodies: Array<[string, string, string]> = [
        ["arrays at the top", DEEP_ARRAYS, "body"],
        [`arrays in ${op.field}`, `{"${op.field}":${DEEP_ARRAYS}}`, op.field],
        [`objects in ${op.field}`, `{"${op.field}":${DEEP_OBJECTS}}`, op.field],
      ];
      for (const [what, raw, param] of bodies) {
        const response = await send(op, raw);
        expectSmallRefusal(response, what);
        expect(response.status, what).toBe(422);
        expect(response.body.errors, what).toEqual([
          {
            param,
            code: "too_deep",
            message: `must not nest arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
          },
        ]);
      }
    });

    it(`answers ${WIDE.toLocaleString("en")} keys or items in ${op.field} with a small 4xx, never a 5xx`, async () => {
      expectSmallRefusal(await send(op, `{"${op.field}":${WIDE_KEYS}}`), "keys");
      expectSmallRefusal(await send(op, `{"${op.field}":${WIDE_ITEMS}}`), "items");
    });
  });

  describe.each(OPERATIONS.filter((op) => op.hasMetadata))("metadata of $id", (op) => {
    it.each(["__proto__", "constructor", "prototype"])(
      "refuses %s as a metadata key with 422 naming it",
      async (name) => {
        const response = await send(op, `{"metadata":{"${name}":"x"}}`);
        expectSmallRefusal(response, name);
        expect(response.status).toBe(422);
        const params = (response.body.errors as Array<{ param: string }>).map((e) => e.param);
        expect(params).toContain(`metadata.${name}`);
      },
    );
  });

  it("refuses __proto__ as a key anywhere: engine state, function secrets, line items", async () => {
    const cases: Array<[string, string, string, string]> = [
      [
        "PUT",
        "/v1/engines/finance/state/proto",
        `{"value":{"a":{"__proto__":{"polluted":true}}}}`,
        "value.a.__proto__",
      ],
      ["PUT", `/v1/functions/bounds/secrets`, `{"__proto__":"x","TOKEN":"y"}`, "__proto__"],
      [
        "POST",
        "/v1/invoices",
        `{"client":"P","currency":"EUR","due_date":"2025-06-30","line_items":[{"quantity":1,"unit_price":1,"__proto__":{"polluted":true}}]}`,
        "line_items[0].__proto__",
      ],
    ];
    for (const [method, path, raw, param] of cases) {
      const response = await t.request(method, path, {
        key: org.key,
        raw,
        headers: { "content-type": "application/json" },
      });
      expectSmallRefusal(response, path);
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual([
        { param, code: "reserved_key", message: "must not be named '__proto__'" },
      ]);
    }
    expect((await t.request("GET", "/v1/engines/finance/state/proto", { key: org.key })).status).toBe(404);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it(`stores an engine state value nested ${MAX_JSON_DEPTH} deep and refuses one more with 422 naming value`, async () => {
    const fits = await t.request("PUT", "/v1/engines/finance/state/deep", {
      key: org.key,
      body: { value: nest(MAX_JSON_DEPTH) },
    });
    expect(fits.status, fits.text).toBe(201);
    expect(fits.body.value).toEqual(nest(MAX_JSON_DEPTH));
    const deeper = await t.request("PUT", "/v1/engines/finance/state/deep", {
      key: org.key,
      body: { value: nest(MAX_JSON_DEPTH + 1) },
    });
    expect(deeper.status).toBe(422);
    expect(deeper.body.errors).toEqual([expect.objectContaining({ param: "value", code: "too_deep" })]);
  });

  it(`lists the first 100 of ${WIDE.toLocaleString("en")} bad metadata values and says how many more there are`, async () => {
    const raw = `{"client":"Many","currency":"EUR","amount":1,"due_date":"2025-06-30","metadata":${wideObject(WIDE, "0")}}`;
    const response = await t.request("POST", "/v1/invoices", {
      key: org.key,
      raw,
      headers: { "content-type": "application/json" },
    });
    expectSmallRefusal(response, "metadata");
    expect(response.status).toBe(422);
    expect(response.body.errors).toHaveLength(100);
    expect(response.body.errors[0]).toMatchObject({ param: "metadata.0", code: "invalid_type" });
    expect(response.body.errors_omitted).toBe(WIDE - 100);
    expect(response.body.detail).toMatch(/^metadata\.0: .+ \(and 99900 more errors, not listed\)$/);
  });

  it(`answers ${WIDE.toLocaleString("en")} unknown fields with 422, each once, the list capped`, async () => {
    const response = await send(
      OPERATIONS.find((op) => op.id === "contacts.create")!,
      wideObject(WIDE, "0"),
    );
    expectSmallRefusal(response, "unknown keys");
    expect(response.status).toBe(422);
    expect(response.body.errors).toHaveLength(100);
    expect(response.body.errors).toContainEqual({
      param: "0",
      code: "unrecognized_keys",
      message: "is not a known field",
    });
    expect(response.body.errors_omitted).toBeGreaterThanOrEqual(WIDE - 100);
  });

  it(`answers a body of ${WIDE.toLocaleString("en")} items with 422`, async () => {
    const response = await send(
      OPERATIONS.find((op) => op.id === "contacts.create")!,
      WIDE_ITEMS,
    );
    expectSmallRefusal(response, "items");
    expect(response.status).toBe(422);
  });
});

/**
 * A request written on a raw socket: its head with `Expect: 100-continue`, then, once the server
 * has taken the request (its `100 Continue`), part of the body; then the socket ended as told.
 * Returns what the server wrote after the `100 Continue`.
 */
async function sendRaw(
  port: number,
  head: string,
  partialBody: string,
  end: (socket: Socket) => void,
): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  let received = "";
  let onData = () => {};
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => {
    received += chunk;
    onData();
  });
  socket.on("error", () => {});
  const closed = new Promise((resolve) => socket.once("close", resolve));
  socket.write(`${head}Expect: 100-continue\r\n\r\n`);
  const CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n";
  await new Promise<void>((resolve) => (onData = () => received.startsWith(CONTINUE) && resolve()));
  socket.write(partialBody);
  end(socket);
  await closed;
  return received.slice(CONTINUE.length);
}

describe.each(storeKinds())("a body that never completes, on $name", (kind) => {
  const lines: LogFields[] = [];
  const log = createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line) as LogFields) });
  const t = useTestApp(kind, { http: true, log });
  let org: TestOrg;
  let port: number;

  beforeAll(async () => {
    org = await t.newOrg();
    const deployed = await t.request("POST", "/v1/functions", {
      key: org.key,
      body: {
        name: "echo",
        files: {
          "index.ts": `export default { fetch: (r: Request) => r.text().then((s) => new Response(s)) };`,
        },
      },
    });
    expect(deployed.status, deployed.text).toBe(201);
    const health = await t.fetch("/healthz");
    await health.arrayBuffer();
    port = Number(new URL(health.url).port);
  });

  const head = (path: string, requestId: string, framing: string) =>
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${org.key}\r\n` +
    `Content-Type: application/json\r\nX-Request-Id: ${requestId}\r\n${framing}\r\n`;

  const requestLine = (requestId: string) =>
    lines.find((line) => line.msg === "request" && line.request_id === requestId);

  it.each([
    ["a chunked body cut short", "Transfer-Encoding: chunked", '10\r\n{"client":"Cut",\r\n', "end"],
    ["fewer bytes than its Content-Length", "Content-Length: 100", '{"client":"Short",', "end"],
    ["a connection reset mid-body", "Content-Length: 100", '{"client":"Reset",', "reset"],
  ] as const)("records %s as a 499, never a 500 or an error-level log", async (_, framing, partial, how) => {
    for (const path of ["/v1/invoices", "/v1/functions/echo/invoke"]) {
      const requestId = `abort-${randomBase62(12)}`;
      const answer = await sendRaw(port, head(path, requestId, framing), partial, (socket) =>
        how === "end" ? socket.end() : socket.resetAndDestroy(),
      );
      // Node answers a half-closed, incomplete request with its own 400, or nothing at all.
      expect(answer === "" || answer.startsWith("HTTP/1.1 4"), answer).toBe(true);
      await expect.poll(() => requestLine(requestId)?.status, { timeout: 5_000 }).toBe(499);
      expect(requestLine(requestId)!.level).toBe("info");
    }
    expect(lines.filter((line) => line.level === "error")).toEqual([]);
    const metrics = await t.services.metrics.render();
    expect(metrics).toMatch(/tessera_http_requests_total\{method="POST",route="[^"]+",status="499"\} \d+/);
    expect(metrics).not.toMatch(/status="5\d\d"/);
  });
});

async function created(
  t: TestApp,
  org: TestOrg,
  path: string,
  body: Record<string, unknown>,
): Promise<string> {
  const response = await t.request("POST", path, { key: org.key, body });
  expect(response.status, `${path}: ${response.text}`).toBe(201);
  return String(response.body.id);
}
