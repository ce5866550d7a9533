import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the scripted server got it. */
export interface Recorded {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When it arrived (performance.now()). */
  at: number;
}

/** What the server does with request number `index` (from 0). */
export type Step = (res: ServerResponse, request: Recorded, req: IncomingMessage) => void;

export interface ScriptedServer {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

/**
 * A small HTTP server of the test's own on 127.0.0.1 that answers each request with the next step
 * of its script (the last step again once they run out): statuses, headers, cut connections and
 * answers that never come, for what a real server does only by accident.
 */
export async function startScriptedServer(steps: Step[]): Promise<ScriptedServer> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request: Recorded = {
        method: req.method!,
        path: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: performance.now(),
      };
      requests.push(request);
      steps[Math.min(requests.length - 1, steps.length - 1)]!(res, request, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers JSON. */
export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };

/** Answers an RFC 9457 problem as Tessera's api/problem.ts renders it. */
export const problem =
  (status: number, code: string, headers: Record<string, string> = {}): Step =>
  (res) => {
    res.writeHead(status, {
      "content-type": "application/problem+json",
      "x-request-id": "req_scripted",
      ...headers,
    });
    res.end(
      JSON.stringify({
        type: `https://tessera.dev/problems/${code.replaceAll("_", "-")}`,
        title: code,
        status,
        detail: `scripted ${code}`,
        code,
        request_id: "req_scripted",
        errors: status === 400 ? [{ param: "status", code: "invalid", message: "unknown value" }] : [],
      }),
    );
  };

/** Sends the headers and part of the body, then cuts the connection. */
export const cutMidBody: Step = (res, _request, req) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
  res.write('{"id":"con_');
  setTimeout(() => req.socket.destroy(), 10);
};

/** Never answers (the server's close() ends it). */
export const hang: Step = () => undefined;
