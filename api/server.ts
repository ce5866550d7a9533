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
 * path first; everything else, and what it leaves, goes to the app. Every response ends
 * with the rest of its turn's (end-of-turn.ts).
 */
export function listen(served: Served, hostname: string, port: number): Promise<Server> {
  const { invocation, upgrade } = served;
  const app = getRequestListener(served.app.fetch, { hostname });
  const Responses = endOfTurnResponses();
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (!invocation?.(req, res)) void app(req, res);
  };
  const server = new UpgradingServer({ ServerResponse: Responses }, listener);
  if (upgrade) {
    server.onClose = () => upgrade.close();
    // With a listener here, Node hands over every request that asks for an upgrade: one that is
    // not a function's WebSocket is answered as the plain request it also is, then closed.
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!upgrade.handle(req, socket, head)) answerPlainly(req, socket, Responses, listener);
    });
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
