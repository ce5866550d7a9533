import { ServerResponse, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { AppError } from "../../core/index.ts";
import type { UpgradeHandshake } from "../../runtime/index.ts";
import { requestIdFrom } from "../middleware/request-id.ts";
import { recordRequest } from "../observe.ts";
import { headersFromNode } from "./headers.ts";
import { matchInvocation, type InvocationTarget } from "./match.ts";
import { write, writeProblem, type NodeInvocationDeps } from "./node.ts";
import { serveInvocation, type InvocationOutcome, type InvocationRunner } from "./serve.ts";

/**
 * Step 4c, WebSockets: an HTTP upgrade of the invocation path arrives at Node's `upgrade`
 * event, not as a request. It goes through the same core (`serve.ts`: caller, function,
 * permission, rate limit) and runs as the function's request; when the function accepts it
 * (`Deno.upgradeWebSocket`), `ws` completes the handshake (RFC 6455 §4.2.2) and the socket
 * is the function's (runtime/websocket.ts). Anything refused before that, or any answer of
 * the function other than the upgrade, is written as a plain HTTP response and the
 * connection closed.
 */
export interface NodeUpgrade {
  /** Serves an upgrade to `websocket` of the invocation path; false for any other (the server answers it). */
  handle(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Closes every open socket with 1001 (the server is going away) and refuses new upgrades (503). */
  close(): void;
}

/** RFC 6455 §4.1: a 16-byte nonce, base64. */
const KEY = /^[+/0-9A-Za-z]{22}==$/;
/** Sockets still open this long after the server's 1001 are cut. */
const CLOSE_GRACE_MS = 1_000;

export function createNodeUpgrade(deps: NodeInvocationDeps): NodeUpgrade {
  let chosen: string | false = false;
  let closed = false;
  const server = new WebSocketServer({
    noServer: true,
    maxPayload: deps.config.functions.wsMaxMessageBytes,
    // The subprotocol the function chose; `handleUpgrade` asks for it synchronously (accept, below).
    handleProtocols: () => chosen,
  });
  const handshake = (req: IncomingMessage, socket: Duplex, head: Buffer): UpgradeHandshake => ({
    accept(protocol) {
      if (closed) throw new Error("the server is shutting down");
      let ws: WebSocket | undefined;
      chosen = protocol ?? false;
      try {
        server.handleUpgrade(req, socket, head, (accepted) => (ws = accepted));
      } finally {
        chosen = false;
      }
      if (!ws) throw new Error("the client went away before the WebSocket opened");
      return ws;
    },
  });
  return {
    handle(req, socket, head) {
      if (!/^websocket$/i.test(req.headers.upgrade ?? "")) return false;
      const target = targetOf(req);
      if (!target) return false;
      void serveUpgrade(deps, req, socket, target, (deps, fn, request) => {
        if (closed) throw new AppError("unavailable", "The server is shutting down");
        return deps.invoker.upgrade(fn, request, handshake(req, socket, head));
      });
      return true;
    },
    close() {
      if (closed) return;
      closed = true;
      for (const ws of server.clients) ws.close(1001, "the server is shutting down");
      const cut = setTimeout(() => {
        for (const ws of server.clients) ws.terminate();
      }, CLOSE_GRACE_MS);
      cut.unref();
    },
  };
}

/** The invocation an upgrade names; its URL made canonical first (the app does that for requests). */
function targetOf(req: IncomingMessage): InvocationTarget | undefined {
  const path = req.url ?? "";
  const target = matchInvocation(path, req.headers.host);
  if (target || !path.startsWith("/") || !req.headers.host) return target;
  try {
    const url = new URL(path, `http://${req.headers.host}`);
    return matchInvocation(`${url.pathname}${url.search}`, url.host);
  } catch {
    return undefined;
  }
}

async function serveUpgrade(
  deps: NodeInvocationDeps,
  req: IncomingMessage,
  socket: Duplex,
  target: InvocationTarget,
  run: InvocationRunner,
): Promise<void> {
  const started = performance.now();
  const given = req.headers["x-request-id"];
  const requestId = requestIdFrom(typeof given === "string" ? given : undefined);
  const outcome: InvocationOutcome = { headers: {}, principal: undefined };
  // A reset must not be an uncaught error (once `ws` has the socket, it listens too).
  socket.on("error", () => {});
  let status = 500;
  let res: ServerResponse | undefined;
  try {
    checkHandshake(req);
    const response = await serveInvocation(
      deps,
      {
        ref: target.ref,
        requestId,
        method: "GET",
        url: target.url,
        authorization: req.headers.authorization,
        carried: undefined,
        // Hop-by-hop as they are, the upgrade's two stay: the function's `Deno.upgradeWebSocket` reads them.
        headers: (withoutAuthorization) => [
          ...headersFromNode(req.rawHeaders, withoutAuthorization),
          ["connection", "Upgrade"],
          ["upgrade", "websocket"],
        ],
        readBody: () => Promise.resolve(Buffer.alloc(0)),
        depth: 0,
      },
      outcome,
      run,
    );
    status = response.status;
    if (status !== 101) {
      res = responseOn(req, socket);
      await write(res, "GET", response, { "x-request-id": requestId, ...outcome.headers }, deps.origin);
    }
  } catch (error) {
    res ??= responseOn(req, socket);
    status = writeProblem(res, error, requestId, outcome.headers, deps.log);
  } finally {
    recordRequest(deps, {
      requestId,
      method: "GET",
      route: target.route,
      status,
      seconds: (performance.now() - started) / 1000,
      org: outcome.principal?.orgId,
    });
  }
}

/** What `ws` would refuse (RFC 6455 §4.2.1), refused before the function runs. */
function checkHandshake(req: IncomingMessage): void {
  if (req.method !== "GET") {
    throw new AppError("invalid_request", "A WebSocket handshake is a GET request");
  }
  if (!KEY.test(req.headers["sec-websocket-key"] ?? "")) {
    throw new AppError("invalid_request", "Missing or invalid Sec-WebSocket-Key header");
  }
  const version = req.headers["sec-websocket-version"];
  if (version !== "13" && version !== "8") {
    throw new AppError("invalid_request", "Unsupported Sec-WebSocket-Version (13 is)", {
      headers: { "Sec-WebSocket-Version": "13" },
    });
  }
}

/** An HTTP response on an upgrade's socket (no upgrade made): written once, then the connection closes. */
function responseOn(req: IncomingMessage, socket: Duplex): ServerResponse {
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as never);
  res.on("finish", () => socket.end());
  return res;
}
