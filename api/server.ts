import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { endOfTurnResponses } from "./end-of-turn.ts";

/** What a server serves: the app, and (the API role) function invocations off the socket. */
export interface Served {
  app: { fetch: (request: Request) => Response | Promise<Response> };
  /** Takes a request that is an invocation and says so (api/invocation/node.ts). */
  invocation?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

/**
 * Listens on `hostname:port` (0: any free port). Each request is offered to the invocation
 * path first; everything else, and what it leaves, goes to the app. Every response ends
 * with the rest of its turn's (end-of-turn.ts).
 */
export function listen(served: Served, hostname: string, port: number): Promise<Server> {
  const { invocation } = served;
  const app = getRequestListener(served.app.fetch, { hostname });
  const server = createServer({ ServerResponse: endOfTurnResponses() }, (req, res) => {
    if (!invocation?.(req, res)) void app(req, res);
  });
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
