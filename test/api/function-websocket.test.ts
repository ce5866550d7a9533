import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer, type RawData } from "ws";
import { closeServer, listen } from "../../api/index.ts";
import { useTestApp, type TestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * WebSockets through `/v1/functions/<name>/invoke`: `Deno.upgradeWebSocket` over a real
 * socket (the server's `upgrade` event), the same auth as an invocation, the limits, faults
 * confined to their socket, the pool keeping an isolate with an open socket, shutdown (1001),
 * and a function's own outbound `new WebSocket` through the address guard.
 */

const ECHO = `
Deno.serve((req) => {
  const { socket, response } = Deno.upgradeWebSocket(req);
  socket.binaryType = "arraybuffer";
  socket.onopen = () => socket.send("hello " + (Tessera.user ? "key" : "anonymous"));
  socket.onmessage = (event) => {
    if (event.data === "boom") throw new Error("boom in onmessage");
    if (event.data === "bye") return socket.close(4000, "asked to");
    if (typeof event.data === "string") socket.send("echo " + event.data);
    else socket.send(new Uint8Array(event.data).reverse());
  };
  return response;
});`;

const DIAL = `
export default {
  async fetch(req) {
    const target = new URL(req.url).searchParams.get("to");
    const ws = new WebSocket(target);
    const outcome = await new Promise((resolve) => {
      ws.onopen = () => ws.send("ping");
      ws.onmessage = (event) => resolve({ reply: event.data });
      ws.onerror = (event) => resolve({ error: event.message });
    });
    ws.close();
    return Response.json(outcome);
  },
};`;

interface Opened {
  ws: WebSocket;
  messages: Array<string | Buffer>;
  closed: Promise<{ code: number; reason: string }>;
  next(): Promise<string | Buffer>;
}

/** Opens a client socket; resolves once open, or rejects with the HTTP status it was refused with. */
function open(url: string, headers: Record<string, string> = {}): Promise<Opened> {
  const ws = new WebSocket(url, { headers });
  const messages: Array<string | Buffer> = [];
  const waiting: Array<(data: string | Buffer) => void> = [];
  ws.on("message", (data: RawData, isBinary: boolean) => {
    const value = isBinary ? (data as Buffer) : (data as Buffer).toString("utf8");
    const waiter = waiting.shift();
    if (waiter) waiter(value);
    else messages.push(value);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  // A message, or the close that came first (as an error naming its code).
  const next = () =>
    messages.length > 0
      ? Promise.resolve(messages.shift()!)
      : Promise.race([
          new Promise<string | Buffer>((resolve) => waiting.push(resolve)),
          closed.then(({ code, reason }) => Promise.reject(new Error(`closed ${code} ${reason}`))),
        ]);
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve({ ws, messages, closed, next }));
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () =>
        reject(Object.assign(new Error(`refused ${res.statusCode}`), { status: res.statusCode, body })),
      );
    });
    ws.once("error", (error) => reject(error));
  });
}

const refusal = (opening: Promise<Opened>) =>
  opening.then(
    () => ({ status: 101, body: "" }),
    (error: { status?: number; body?: string }) => ({ status: error.status, body: error.body ?? "" }),
  );

describe.each(storeKinds())("function WebSockets on $name", (kind) => {
  const t: TestApp = useTestApp(kind, {
    http: true,
    env: {
      TESSERA_FUNCTION_WS_MAX_MESSAGE_BYTES: "1024",
      TESSERA_FUNCTION_WS_MAX_CONNECTIONS: "2",
      TESSERA_FUNCTION_IDLE_TIMEOUT_MS: "1000",
      // A busy machine must not fail a socket's first entries on CPU time.
      TESSERA_FUNCTION_CPU_TIME_MS: "1000",
    },
  });
  let org: TestOrg;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    org = await t.newOrg();
    // The server `tessera serve` runs (api/server.ts), over the test app's services.
    server = await listen(t.services.api(), "127.0.0.1", 0);
    base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    if (server.listening) await closeServer(server, 1_000);
  });

  const deploy = async (name: string, source: string, extra: Record<string, unknown> = {}) => {
    const response = await t.request("POST", "/v1/functions", {
      key: org.key,
      body: { name, files: { "index.ts": source }, ...extra },
    });
    expect(response.status, response.text).toBe(201);
    return response.body as { id: string };
  };
  const auth = () => ({ authorization: `Bearer ${org.key}` });

  it("echoes text and binary messages through /invoke", async () => {
    await deploy("ws-echo", ECHO);
    const socket = await open(`${base}/v1/functions/ws-echo/invoke/room?x=1`, auth());
    expect(await socket.next()).toBe("hello key");
    socket.ws.send("hi");
    expect(await socket.next()).toBe("echo hi");
    socket.ws.send(Buffer.from([1, 2, 3]));
    expect([...((await socket.next()) as Buffer)]).toEqual([3, 2, 1]);
    socket.ws.send("bye");
    expect(await socket.closed).toEqual({ code: 4000, reason: "asked to" });
  });

  it("serves the realtime-echo example: a room broadcast reaches every socket, a subprotocol is chosen", async () => {
    const example = readFileSync(
      new URL("../../examples/functions/realtime-echo/index.ts", import.meta.url),
      "utf8",
    );
    await deploy("realtime-echo", example);
    const url = `${base}/v1/functions/realtime-echo/invoke`;
    const first = await open(url, auth());
    expect(await first.next()).toBe("joined: 1");
    const second = await open(url, auth());
    // Sent on the first socket from the second's request: each socket sends for its own request.
    expect(await first.next()).toBe("joined: 2");
    expect(await second.next()).toBe("joined: 2");
    second.ws.send("hi");
    expect(await second.next()).toBe("echo: hi");
    second.ws.close();
    expect(await first.next()).toBe("left: 1");
    first.ws.close();
    await Promise.all([first.closed, second.closed]);

    await deploy(
      "ws-protocol",
      `Deno.serve((req) => {
        const { socket, response } = Deno.upgradeWebSocket(req, { protocol: "chat.v2" });
        socket.onopen = () => socket.send("protocol " + socket.protocol);
        return response;
      });`,
    );
    const chosen = new WebSocket(`${base}/v1/functions/ws-protocol/invoke`, ["chat.v1", "chat.v2"], {
      headers: auth(),
    });
    const [message] = await Promise.all([
      new Promise<string>((resolve) =>
        chosen.once("message", (data: Buffer) => resolve(data.toString("utf8"))),
      ),
      new Promise((resolve) => chosen.once("open", resolve)),
    ]);
    expect([chosen.protocol, message]).toEqual(["chat.v2", "protocol chat.v2"]);
    chosen.close();
    await new Promise((resolve) => chosen.once("close", resolve));
  });

  it("refuses a private function's upgrade without a key before upgrading (401)", async () => {
    await deploy("ws-private", ECHO);
    const refused = await refusal(open(`${base}/v1/functions/ws-private/invoke`));
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toMatchObject({ status: 401 });
    // A public one takes anonymous callers.
    const { id } = await deploy("ws-public", ECHO, { auth: "public" });
    const socket = await open(`${base}/v1/functions/${id}/invoke`);
    expect(await socket.next()).toBe("hello anonymous");
    socket.ws.close();
    await socket.closed;
  });

  it("answers a plain request to Deno.upgradeWebSocket with a 500 problem carrying Deno's TypeError", async () => {
    await deploy("ws-plain", ECHO);
    const response = await t.request("GET", "/v1/functions/ws-plain/invoke", { key: org.key });
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    expect(response.body.detail).toContain("Invalid Header: 'upgrade' header must contain 'websocket'");
  });

  it("closes only the socket whose onmessage threw (1011); another socket of the function goes on", async () => {
    await deploy("ws-fault", ECHO);
    const url = `${base}/v1/functions/ws-fault/invoke`;
    const [failing, healthy] = await Promise.all([open(url, auth()), open(url, auth())]);
    await Promise.all([failing.next(), healthy.next()]);
    failing.ws.send("boom");
    expect((await failing.closed).code).toBe(1011);
    healthy.ws.send("still there?");
    expect(await healthy.next()).toBe("echo still there?");
    healthy.ws.close();
    await healthy.closed;
    // The failed request's lines are saved once it is over, a moment after its socket closed.
    await expect
      .poll(
        async () =>
          JSON.stringify((await t.request("GET", "/v1/functions/ws-fault/logs", { key: org.key })).body),
        { timeout: 10_000 },
      )
      .toContain("boom in onmessage");
  });

  it("closes a socket whose client sends a message over the limit (1009)", async () => {
    await deploy("ws-size", ECHO);
    const socket = await open(`${base}/v1/functions/ws-size/invoke`, auth());
    await socket.next();
    socket.ws.send("x".repeat(1000));
    expect(await socket.next()).toBe(`echo ${"x".repeat(1000)}`);
    socket.ws.send("x".repeat(1025));
    expect((await socket.closed).code).toBe(1009);
  });

  it("refuses an upgrade past the function's open sockets (429) before upgrading", async () => {
    await deploy("ws-limit", ECHO);
    const url = `${base}/v1/functions/ws-limit/invoke`;
    const sockets = [await open(url, auth()), await open(url, auth())];
    const refused = await refusal(open(url, auth()));
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).detail).toContain("TESSERA_FUNCTION_WS_MAX_CONNECTIONS");
    sockets[0]!.ws.close();
    await sockets[0]!.closed;
    const again = await open(url, auth());
    expect(await again.next()).toBe("hello key");
    for (const socket of [sockets[1]!, again]) {
      socket.ws.close();
      await socket.closed;
    }
  });

  it("keeps the isolate of an open socket through idle sweeps, and retires it once closed", async () => {
    const { isolates } = t.services.functionHost;
    // Steps the clock past the idle timeout, sweeping as the pool's own timer would; the isolates left.
    const idleSweeps = async () => {
      for (let i = 0; i < 3; i++) {
        t.clock.advance(5_000);
        await isolates.sweep();
      }
      return (await isolates.stats()).isolates;
    };
    // A socket closes on the server a moment after its client sees it close: earlier tests' isolates
    // are idle, and retired, only then.
    await expect.poll(idleSweeps, { timeout: 10_000 }).toBe(0);
    await deploy("ws-idle", ECHO);
    const socket = await open(`${base}/v1/functions/ws-idle/invoke`, auth());
    await socket.next();
    expect(await idleSweeps()).toBe(1);
    socket.ws.send("after the sweeps");
    expect(await socket.next()).toBe("echo after the sweeps");
    socket.ws.close();
    await socket.closed;
    await expect.poll(idleSweeps, { timeout: 10_000 }).toBe(0);
  });

  it("refuses a function's outbound WebSocket to a private address unless private targets are allowed", async () => {
    await deploy("ws-dial", DIAL);
    const response = await t.request("GET", `/v1/functions/ws-dial/invoke?to=${encodeURIComponent(base)}`, {
      key: org.key,
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.error).toMatch(/blocked address.*TESSERA_ALLOW_PRIVATE_TARGETS/);
  });

  // Last: closing the server closes the API's sockets for good.
  it("closes open sockets with 1001 when the server shuts down", async () => {
    await deploy("ws-shutdown", ECHO);
    const socket = await open(`${base}/v1/functions/ws-shutdown/invoke`, auth());
    await socket.next();
    const started = Date.now();
    await closeServer(server, 10_000);
    expect(await socket.closed).toMatchObject({ code: 1001 });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe.each(storeKinds())("function WebSockets with private targets allowed, on $name", (kind) => {
  const t: TestApp = useTestApp(kind, {
    http: true,
    env: {
      TESSERA_ALLOW_PRIVATE_TARGETS: "1",
      TESSERA_FUNCTION_WS_MAX_LIFETIME_MS: "1000",
      TESSERA_FUNCTION_CPU_TIME_MS: "1000",
    },
  });
  let org: TestOrg;
  let server: Server;
  let target: WebSocketServer;
  let targetUrl: string;

  beforeAll(async () => {
    org = await t.newOrg();
    server = await listen(t.services.api(), "127.0.0.1", 0);
    target = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    target.on("connection", (ws) =>
      ws.on("message", (data: Buffer) => ws.send(`pong to ${data.toString("utf8")}`)),
    );
    await new Promise((resolve) => target.once("listening", resolve));
    targetUrl = `ws://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await closeServer(server, 1_000);
    await new Promise((resolve) => target.close(resolve));
  });

  it("lets a function open a WebSocket to a server the operator allows, for the life of its request", async () => {
    const deployed = await t.request("POST", "/v1/functions", {
      key: org.key,
      body: { name: "dial", files: { "index.ts": DIAL } },
    });
    expect(deployed.status, deployed.text).toBe(201);
    const response = await t.request("GET", `/v1/functions/dial/invoke?to=${encodeURIComponent(targetUrl)}`, {
      key: org.key,
    });
    expect(response.body).toEqual({ reply: "pong to ping" });
  });

  it("closes a socket at its maximum lifetime (1001)", async () => {
    const deployed = await t.request("POST", "/v1/functions", {
      key: org.key,
      body: { name: "short-lived", files: { "index.ts": ECHO } },
    });
    expect(deployed.status, deployed.text).toBe(201);
    const port = (server.address() as AddressInfo).port;
    const socket = await open(`ws://127.0.0.1:${port}/v1/functions/short-lived/invoke`, {
      authorization: `Bearer ${org.key}`,
    });
    await socket.next();
    const started = Date.now();
    expect(await socket.closed).toMatchObject({
      code: 1001,
      reason: "the connection reached its maximum lifetime",
    });
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
