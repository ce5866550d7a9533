import { Server, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { getRequestListener } from "@hono/node-server";
import { endOfTurnResponses } from "./end-of-turn.ts";

/** What a server serves: the app, and (the API role) function invocations off the socket. */
export interface Served {
  app: { fetch: (request: Request) => Response | Promise<Response> };
  /** Takes a request that is an invocation and says so (api/invocation/node.ts). */
  invocation?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** Takes an upgrade that is a function's WebSocket, and closes those sockets with the server (api/invocation/upgrade.ts). */
  upgrade?: {
    handle(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
    close(): void;
  };
  /** Another origin on the same listener, told apart by the `Host` of each request (the functions origin). */
  functionsOrigin?: HostServed | undefined;
}

/** What one host is served, on a listener shared with another origin. */
export interface HostServed extends Omit<Served, "functionsOrigin"> {
  /** Whether a request's `Host` header names this origin. */
  serves(host: string | undefined): boolean;
}

/** One origin's way with a request and an upgrade, on a listener. */
interface Handlers {
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
}

/**
 * Node's `close()` waits for upgraded sockets, which `closeAllConnections()` does not reach:
 * this server's `close()` closes its WebSockets first (1001, going away), before it waits.
 */
class UpgradingServer extends Server {
  onClose: (() => void) | undefined;
  override close(callback?: (error?: Error) => void): this {
    this.onClose?.();
    return super.close(callback);
  }
}

/**
 * Listens on `hostname:port` (0: any free port). Each request is offered to the invocation
 * path first; everything else, and what it leaves, goes to the app. A request whose `Host` is
 * the functions origin's goes to that origin's the same way instead. Every response ends with
 * the rest of its turn's (end-of-turn.ts).
 */
export function listen(served: Served, hostname: string, port: number): Promise<Server> {
  const Responses = endOfTurnResponses();
  const main = handlersOf(served, hostname, Responses);
  const other = served.functionsOrigin;
  const byHost = other && handlersOf(other, hostname, Responses);
  const pick = (req: IncomingMessage) => (byHost && other.serves(req.headers.host) ? byHost : main);
  // One origin (the quick start's): its listener as is, nothing asked of each request's Host.
  const listener = byHost
    ? (req: IncomingMessage, res: ServerResponse) => pick(req).listener(req, res)
    : main.listener;
  const server = new UpgradingServer({ ServerResponse: Responses }, listener);
  server.onClose = () => {
    served.upgrade?.close();
    other?.upgrade?.close();
  };
  // With a listener here, Node hands over every request that asks for an upgrade: one that is
  // not a function's WebSocket is answered as the plain request it also is, then closed.
  if (served.upgrade || other?.upgrade) {
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      pick(req).upgrade(req, socket, head),
    );
  }
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

/** Stops accepting, lets in-flight requests finish (up to the grace period), then closes. */
export function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

function handlersOf(
  served: Omit<Served, "functionsOrigin">,
  hostname: string,
  Responses: typeof ServerResponse,
): Handlers {
  const { invocation, upgrade } = served;
  const app = getRequestListener(served.app.fetch, { hostname });
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (!invocation?.(req, res)) void app(req, res);
  };
  return {
    listener,
    upgrade: (req, socket, head) => {
      if (!upgrade?.handle(req, socket, head)) answerPlainly(req, socket, Responses, listener);
    },
  };
}

/** An upgrade request served as a plain request on its socket (the body, if any, is not read: 400). */
function answerPlainly(
  req: IncomingMessage,
  socket: Duplex,
  Responses: typeof ServerResponse,
  listener: (req: IncomingMessage, res: ServerResponse) => void,
): void {
  socket.on("error", () => socket.destroy());
  if (req.headers["transfer-encoding"] || Number(req.headers["content-length"] ?? 0) > 0) {
    socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    return;
  }
  const res = new Responses(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as never);
  res.on("finish", () => socket.end());
  req.push(null);
  listener(req, res);
}
