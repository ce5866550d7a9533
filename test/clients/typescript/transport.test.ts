import { inspect } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  MissingCredentialsError,
  RateLimitError,
  Tessera,
  TokenRefreshError,
  type ClientOptions,
  type OAuthTokens,
} from "../../../clients/typescript/src/index.ts";
import { retryDelayMs } from "../../../clients/typescript/src/core/retry.ts";
import { VERSION } from "../../../clients/typescript/src/version.ts";
import {
  cutMidBody,
  hang,
  json,
  problem,
  startScriptedServer,
  type ScriptedServer,
  type Step,
} from "./scripted-server.ts";

/** What a real server and network do only by accident, from a scripted server of the test's own. */
const servers: ScriptedServer[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const server of servers.splice(0)) await server.close();
});

async function scripted(steps: Step[], options: ClientOptions = {}) {
  const server = await startScriptedServer(steps);
  servers.push(server);
  const client = new Tessera({ apiKey: "sk_live_scripted", baseURL: server.url, ...options });
  return { server, client, requests: server.requests };
}

const CONTACT = { id: "con_1", object: "contact", name: "Ada" };
const fast = { "retry-after-ms": "10" };

describe("retries", () => {
  it("waits what a 429's Retry-After asks, then succeeds", async () => {
    const { client, requests } = await scripted([
      problem(429, "rate_limited", { "retry-after": "0.05" }),
      json(200, CONTACT),
    ]);
    expect(await client.contacts.retrieve("con_1")).toEqual(CONTACT);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(45);
  });

  it("retries a 503 then succeeds, sending every retry of a POST with the same Idempotency-Key", async () => {
    const { client, requests } = await scripted([
      problem(503, "unavailable", fast),
      problem(503, "unavailable", fast),
      json(201, CONTACT),
    ]);
    expect(await client.contacts.create({ name: "Ada" })).toEqual(CONTACT);
    expect(requests.map((r) => r.method)).toEqual(["POST", "POST", "POST"]);
    const keys = requests.map((r) => r.headers["idempotency-key"]);
    expect(keys[0]).toMatch(/^tessera-retry-[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(requests.map((r) => r.body)).toEqual(Array(3).fill('{"name":"Ada"}'));
    // Another call is another key.
    await client.contacts.create({ name: "Ada" });
    expect(requests[3]!.headers["idempotency-key"]).not.toBe(keys[0]);
  });

  it("gives up after maxRetries and throws the last answer's error", async () => {
    const { client, requests } = await scripted([problem(503, "unavailable", fast)], { maxRetries: 2 });
    const error = await client.contacts.create({ name: "Ada" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 503, code: "unavailable", requestId: "req_scripted" });
    expect(requests).toHaveLength(3);
  });

  it("retries a connection cut in the middle of the response body", async () => {
    const { client, requests } = await scripted([cutMidBody, json(200, CONTACT)]);
    expect(await client.contacts.retrieve("con_1")).toEqual(CONTACT);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(350); // the 0.5 s backoff, less jitter
  });

  it("times out a response slower than `timeout`, retries it, and throws APITimeoutError", async () => {
    const { client, requests } = await scripted([hang], { timeout: 100, maxRetries: 1 });
    const error = await client.me.retrieve().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(requests).toHaveLength(2);
  });

  it("does not retry a 400, nor any 4xx but 408 and 429", async () => {
    const { client, requests } = await scripted([problem(400, "invalid_request")]);
    const error = await client.invoices.list({ status: "open" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, errors: [{ param: "status", code: "invalid" }] });
    expect(requests).toHaveLength(1);
    const conflict = await scripted([problem(409, "conflict"), json(200, CONTACT)]);
    await expect(conflict.client.contacts.retrieve("con_1")).rejects.toMatchObject({ status: 409 });
    expect(conflict.requests).toHaveLength(1);
    const timeout = await scripted([problem(408, "request_timeout", fast), json(200, CONTACT)]);
    await expect(timeout.client.contacts.retrieve("con_1")).resolves.toEqual(CONTACT);
  });

  it("does not wait for a Retry-After past a minute: RateLimitError at once, with the reset time", async () => {
    const reset = Math.floor(Date.now() / 1000) + 120;
    const { client, requests } = await scripted([
      problem(429, "rate_limited", {
        "retry-after": "120",
        "x-ratelimit-limit": "600",
        "x-ratelimit-reset": String(reset),
      }),
    ]);
    const error = (await client.me.retrieve().catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.limit).toBe(600);
    expect(error.resetAt!.getTime()).toBeGreaterThanOrEqual(Date.now() + 100_000);
    expect(requests).toHaveLength(1);
  });

  it("stops at once when the caller's signal aborts, between attempts too", async () => {
    const { client, requests } = await scripted([hang]);
    const controller = new AbortController();
    const pending = client.me.retrieve({ signal: controller.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    controller.abort();
    expect(await pending).toBeInstanceOf(APIUserAbortError);
    const slow = await scripted([problem(503, "unavailable", { "retry-after": "30" })]);
    const between = new AbortController();
    const waiting = slow.client.me.retrieve({ signal: between.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(slow.requests).toHaveLength(1));
    between.abort();
    expect(await waiting).toBeInstanceOf(APIUserAbortError);
    expect(slow.requests).toHaveLength(1);
  });

  it("computes its waits as openai-node does: 0.5 s doubling to 8 s, less up to a quarter; Retry-After first", () => {
    const now = Date.parse("2026-11-23T00:00:00Z");
    expect(retryDelayMs(0, undefined, now, () => 0)).toBe(500);
    expect(retryDelayMs(0, undefined, now, () => 1)).toBe(375);
    expect(retryDelayMs(2, undefined, now, () => 0)).toBe(2000);
    expect(retryDelayMs(10, undefined, now, () => 0)).toBe(8000);
    expect(retryDelayMs(0, new Headers({ "retry-after-ms": "25" }), now, () => 0)).toBe(25);
    expect(retryDelayMs(0, new Headers({ "retry-after": "3" }), now, () => 0)).toBe(3000);
    const date = new Date(now + 4000).toUTCString();
    expect(retryDelayMs(0, new Headers({ "retry-after": date }), now, () => 0)).toBe(4000);
    expect(retryDelayMs(0, new Headers({ "retry-after": "61" }), now, () => 0)).toBeUndefined();
  });
});

describe("Idempotency-Key and headers", () => {
  it("sends a key on POST and PATCH (what the server stores, docs/api.md), none on GET, PUT or DELETE", async () => {
    const { client, requests } = await scripted([json(200, CONTACT)]);
    await client.contacts.update("con_1", { name: "Ada" });
    await client.contacts.retrieve("con_1");
    await client.contacts.delete("con_1");
    await client.engines.setState("finance", "cursor", { value: 3 });
    await client.contacts.create({ name: "Ada" }, { idempotencyKey: "order-4711" });
    expect(requests.map((r) => [r.method, r.headers["idempotency-key"]])).toEqual([
      ["PATCH", expect.stringMatching(/^tessera-retry-/)],
      ["GET", undefined],
      ["DELETE", undefined],
      ["PUT", undefined],
      ["POST", "order-4711"],
    ]);
  });

  it("sends its defaults, then the request's own headers; null removes one", async () => {
    const { client, requests } = await scripted([json(200, CONTACT)], {
      defaultHeaders: { "x-team": "books", "x-gone": "1" },
    });
    await client.contacts.create(
      { name: "Ada" },
      { headers: { "x-team": "sales", "x-gone": null, "x-trace": "t1" } },
    );
    const headers = requests[0]!.headers;
    expect(headers).toMatchObject({
      authorization: "Bearer sk_live_scripted",
      accept: "application/json",
      "content-type": "application/json",
      "user-agent": `tessera-typescript/${VERSION}`,
      "x-team": "sales",
      "x-trace": "t1",
    });
    expect(headers["x-gone"]).toBeUndefined();
    await client.me.retrieve();
    expect(requests[1]!.headers["content-type"]).toBeUndefined();
  });

  it("serializes list filters: arrays as comma lists, numbers and booleans as text", async () => {
    const { client, requests } = await scripted([
      json(200, { data: [], meta: { total: 0, page: 1, per_page: 5 } }),
    ]);
    await client.invoices.list({ status: ["open", "overdue"], per_page: 5, sort: "-amount" });
    await client.products.list({ active: true });
    expect(requests.map((r) => r.path)).toEqual([
      "/v1/invoices?status=open%2Coverdue&per_page=5&sort=-amount",
      "/v1/products?active=true",
    ]);
  });
});

describe("function invocations", () => {
  it("returns the function's own answer whatever its status; throws the platform's problems", async () => {
    const own: Step = (res) => res.writeHead(500, { "content-type": "text/plain" }).end("my own failure");
    const { client, requests } = await scripted([own, problem(404, "not_found")]);
    const response = await client.functions.invoke("hello", { method: "POST", body: { a: 1 }, path: "/x/y" });
    expect(response.status).toBe(500);
    expect(await response.text()).toBe("my own failure");
    expect(requests[0]).toMatchObject({
      method: "POST",
      path: "/v1/functions/hello/invoke/x/y",
      body: '{"a":1}',
    });
    await expect(client.functions.invoke("nope")).rejects.toMatchObject({ status: 404, code: "not_found" });
  });

  it("retries a POST only when the platform refused it before it ran (429), and sends it no Idempotency-Key", async () => {
    const ok: Step = (res) => res.writeHead(200, { "content-type": "text/plain" }).end("ran");
    const refused = await scripted([problem(429, "rate_limited", fast), ok]);
    expect(await (await refused.client.functions.invoke("hello", { body: "x" })).text()).toBe("ran");
    expect(refused.requests).toHaveLength(2);
    expect(refused.requests[0]!.headers["idempotency-key"]).toBeUndefined();
    const failed = await scripted([problem(503, "unavailable", fast), ok]);
    await expect(failed.client.functions.invoke("hello", { method: "POST" })).rejects.toBeInstanceOf(
      InternalServerError,
    );
    expect(failed.requests).toHaveLength(1);
    // A GET may be sent twice.
    const read = await scripted([problem(503, "unavailable", fast), ok]);
    expect((await read.client.functions.invoke("hello")).status).toBe(200);
    expect(read.requests).toHaveLength(2);
  });
});

describe("OAuth refresh", () => {
  const oauth = { accessToken: "at_1", refreshToken: "rt_1", clientId: "oc_app", clientSecret: "ocs_secret" };
  const expired = problem(401, "invalid_token", {
    "www-authenticate": 'Bearer realm="tessera", error="invalid_token"',
  });

  it("refreshes once on 401 invalid_token, hands over the new pair, and sends the request again", async () => {
    const tokens: OAuthTokens[] = [];
    const issued = json(200, {
      access_token: "at_2",
      refresh_token: "rt_2",
      expires_in: 3600,
      token_type: "Bearer",
    });
    const { client, requests } = await scripted([expired, issued, json(200, CONTACT)], {
      apiKey: undefined,
      ...oauth,
      onTokens: (pair) => void tokens.push(pair),
    });
    expect(await client.contacts.retrieve("con_1")).toEqual(CONTACT);
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /v1/contacts/con_1",
      "POST /oauth/token",
      "GET /v1/contacts/con_1",
    ]);
    expect(requests[1]!.headers.authorization).toBe(
      `Basic ${Buffer.from("oc_app:ocs_secret").toString("base64")}`,
    );
    expect(Object.fromEntries(new URLSearchParams(requests[1]!.body))).toEqual({
      grant_type: "refresh_token",
      refresh_token: "rt_1",
    });
    expect(requests[2]!.headers.authorization).toBe("Bearer at_2");
    expect(tokens).toEqual([{ accessToken: "at_2", refreshToken: "rt_2", expiresIn: 3600 }]);
  });

  it("refreshes once only, and not for a 401 that is not an expired token", async () => {
    const issued = json(200, { access_token: "at_2", refresh_token: "rt_2" });
    const again = await scripted([expired, issued, expired], { apiKey: undefined, ...oauth });
    await expect(again.client.me.retrieve()).rejects.toBeInstanceOf(AuthenticationError);
    expect(again.requests).toHaveLength(3);
    const missing = await scripted([problem(401, "unauthenticated")], { apiKey: undefined, ...oauth });
    await expect(missing.client.me.retrieve()).rejects.toMatchObject({ code: "unauthenticated" });
    expect(missing.requests).toHaveLength(1);
  });

  it("throws TokenRefreshError when the token endpoint refuses the refresh token", async () => {
    const refused = json(400, { error: "invalid_grant", error_description: "grant request is invalid" });
    const { client } = await scripted([expired, refused], { apiKey: undefined, ...oauth });
    const error = await client.me.retrieve().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRefreshError);
    expect(error).toMatchObject({ status: 400, error: "invalid_grant" });
  });
});

describe("configuration and secrecy", () => {
  const KEY = "sk_live_TopSecretKeyValue0123456789abcdef";

  it("reads TESSERA_API_KEY and TESSERA_BASE_URL; no key at all is an error at construction", async () => {
    const server = await startScriptedServer([json(200, { object: "me" })]);
    servers.push(server);
    vi.stubEnv("TESSERA_API_KEY", "sk_live_from_env");
    vi.stubEnv("TESSERA_BASE_URL", `${server.url}/`);
    const client = new Tessera();
    expect(client.baseURL).toBe(server.url);
    await client.me.retrieve();
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk_live_from_env");
    vi.stubEnv("TESSERA_API_KEY", "");
    expect(() => new Tessera()).toThrow(MissingCredentialsError);
    expect(() => new Tessera()).toThrow(/TESSERA_API_KEY/);
    vi.stubEnv("TESSERA_BASE_URL", "");
    expect(new Tessera({ apiKey: "k" }).baseURL).toBe("http://127.0.0.1:8787");
    expect(() => new Tessera({ apiKey: "k", accessToken: "t" })).toThrow(/not both/);
  });

  it("never shows its key: not in inspect, JSON, errors or log lines", async () => {
    const lines: string[] = [];
    const logger = {
      debug: (message: string, details?: Record<string, unknown>) =>
        void lines.push(`${message} ${JSON.stringify(details)}`),
    };
    const { client } = await scripted([problem(401, "invalid_token", { "retry-after-ms": "1" })], {
      apiKey: KEY,
      logger,
    });
    const refused = await client.me.retrieve().catch((e: unknown) => e);
    const unreachable = await new Tessera({
      apiKey: KEY,
      baseURL: "http://127.0.0.1:9",
      maxRetries: 1,
      logger,
    }).me
      .retrieve()
      .catch((e: unknown) => e);
    expect(unreachable).toBeInstanceOf(APIConnectionError);
    expect(lines.some((line) => line.includes("retrying"))).toBe(true);
    const shown = [
      inspect(client, { depth: 10 }),
      inspect(client.invoices, { depth: 10 }),
      JSON.stringify(client),
      JSON.stringify(client.sync.actions),
      String(refused),
      inspect(refused, { depth: 10 }),
      inspect(unreachable, { depth: 10 }),
      JSON.stringify(refused),
      ...lines,
    ].join("\n");
    expect(shown).not.toContain(KEY);
    expect(shown).not.toContain("TopSecret");
    expect(inspect(client)).toContain("[redacted]");
    expect(refused).toBeInstanceOf(APIError);
  });
});

describe("a streamed SYNC reply", () => {
  const sse: Step = (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const problemBody = {
      type: "x",
      title: "Internal",
      status: 500,
      detail: "planner failed",
      code: "internal",
      request_id: "req_1",
      errors: [],
    };
    res.end(`event: delta\ndata: {"text":"Hel"}\n\nevent: error\ndata: ${JSON.stringify(problemBody)}\n\n`);
  };

  it("yields an error event, and finalInteraction throws it as an APIError", async () => {
    const { client, requests } = await scripted([sse]);
    const stream = await client.sync.chat({ message: "hi", stream: true });
    const events = [];
    for await (const event of stream) events.push(event.type);
    expect(events).toEqual(["delta", "error"]);
    expect(requests[0]!.headers.accept).toBe("text/event-stream");
    expect(JSON.parse(requests[0]!.body)).toEqual({ message: "hi" });
    const again = await client.sync.chat({ message: "hi", stream: true });
    await expect(again.finalInteraction()).rejects.toMatchObject({
      status: 500,
      code: "internal",
      requestId: "req_1",
    });
  });
});

describe("streams and cut connections", () => {
  const event = (id: string) =>
    JSON.stringify({ id, object: "event", type: "contact.created", timestamp: "", data: { object: {} } });

  it("stops a SYNC stream on abort(), without an error", async () => {
    const endless: Step = (res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('event: delta\ndata: {"text":"Hel"}\n\n');
    };
    const { client } = await scripted([endless]);
    const stream = await client.sync.chat({ message: "hi", stream: true });
    const seen: string[] = [];
    for await (const item of stream) {
      seen.push(item.type);
      stream.abort();
    }
    expect(seen).toEqual(["delta"]);
  });

  it("resumes an event stream cut in the middle of an event, from the last whole one, dropping the half", async () => {
    const first: Step = (res, _request, req) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(
        `: open\n\nretry: 20\nid: evt_1\nevent: contact.created\ndata: ${event("evt_1")}\n\nid: evt_X\ndata: {"half`,
      );
      setTimeout(() => req.socket.destroy(), 20);
    };
    const second: Step = (res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`id: evt_2\nevent: contact.created\ndata: ${event("evt_2")}\n\n`);
    };
    const { client, requests } = await scripted([first, second]);
    const stream = await client.events.stream({ type: "contact.*", after: "evt_0" });
    const ids: string[] = [];
    for await (const item of stream) if (ids.push(item.id) === 2) break;
    expect(ids).toEqual(["evt_1", "evt_2"]);
    expect(stream.reconnects).toBe(1);
    expect(requests.map((r) => [r.path, r.headers["last-event-id"]])).toEqual([
      ["/v1/events/stream?type=contact.*&after=evt_0", undefined],
      ["/v1/events/stream?type=contact.*", "evt_1"],
    ]);
  });
});
