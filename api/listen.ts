import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { EndTogetherResponse } from "./end-together.ts";

/**
 * Listens on `hostname:port` (0: any free port) for `app`, with `dataPlane` (when given)
 * offered each request first: it takes function invocations (api/data-plane.ts). Every
 * response, the app's and the data plane's, ends with the rest of its turn's (end-together.ts).
 */
export function listen(
  api: {
    app: { fetch: (request: Request) => Response | Promise<Response> };
    dataPlane?: (req: IncomingMessage, res: ServerResponse) => boolean;
  },
  hostname: string,
  port: number,
): Promise<Server> {
  const { dataPlane } = api;
  const app = getRequestListener(api.app.fetch, { hostname });
  // Responses end together once per turn of the event loop (end-together.ts).
  const server = createServer({ ServerResponse: EndTogetherResponse }, (req, res) => {
    if (!dataPlane?.(req, res)) void app(req, res);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}
