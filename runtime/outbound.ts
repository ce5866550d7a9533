import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { AppError, BlockedAddressError, guardedLookup, isPrivateAddress } from "../core/index.ts";
import type { OutboundRequest, OutboundResponse } from "../sandbox/index.ts";

/**
 * A function's outbound `fetch`, made by the host with node:http(s) so that the
 * address dialled is the address judged (the same guard as webhooks: no loopback,
 * private, link-local or metadata addresses unless the operator allows them, no DNS
 * rebinding). Redirects are followed by hand, up to 20, each hop judged again.
 * The response body is read whole, up to a limit.
 */

export interface OutboundOptions {
  allowPrivateTargets: boolean;
  maxResponseBytes: number;
  userAgent: string;
}

const MAX_REDIRECTS = 20;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Hop-by-hop and framing headers are the transport's business, not the function's.
const DROPPED_REQUEST_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
]);

export type OutboundFetch = (request: OutboundRequest, deadline: AbortSignal) => Promise<OutboundResponse>;

export function createOutboundFetch(options: OutboundOptions): OutboundFetch & { dispose(): void } {
  const agents = {
    "http:": new http.Agent({ keepAlive: true, maxSockets: 256 }),
    "https:": new https.Agent({ keepAlive: true, maxSockets: 256 }),
  };
  const fetchOnce = async (request: OutboundRequest, deadline: AbortSignal): Promise<OutboundResponse> => {
    let current = request;
    for (let hop = 0; ; hop++) {
      const response = await send(current, deadline, agents, options);
      const location = response.headers.find(([name]) => name === "location")?.[1];
      if (!REDIRECTS.has(response.status) || !location) return response;
      if (hop >= MAX_REDIRECTS) throw new AppError("invalid_request", "fetch: too many redirects");
      const next = new URL(location, current.url).toString();
      // 303, and 301/302 after a POST, turn into a GET without a body (the Fetch standard).
      const toGet =
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && current.method === "POST");
      current = {
        method: toGet ? (current.method === "HEAD" ? "HEAD" : "GET") : current.method,
        url: next,
        headers: toGet
          ? current.headers.filter(([name]) => !name.toLowerCase().startsWith("content-"))
          : current.headers,
        body: toGet ? null : current.body,
      };
    }
  };
  return Object.assign(fetchOnce, {
    dispose() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  });
}

function send(
  request: OutboundRequest,
  deadline: AbortSignal,
  agents: { "http:": http.Agent; "https:": https.Agent },
  options: OutboundOptions,
): Promise<OutboundResponse> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return Promise.reject(
      new AppError("invalid_request", `fetch: invalid URL '${request.url.slice(0, 200)}'`),
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Promise.reject(new AppError("invalid_request", `fetch: unsupported scheme ${url.protocol}`));
  }
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (!options.allowPrivateTargets && isIP(literal) !== 0 && isPrivateAddress(literal)) {
    return Promise.reject(
      new AppError("invalid_request", `fetch: ${new BlockedAddressError(url.hostname, literal).message}`),
    );
  }
  const headers: Record<string, string> = { "user-agent": options.userAgent };
  for (const [name, value] of request.headers) {
    const lower = name.toLowerCase();
    if (DROPPED_REQUEST_HEADERS.has(lower)) continue;
    headers[lower] = headers[lower] && lower !== "user-agent" ? `${headers[lower]}, ${value}` : value;
  }
  if (request.body) headers["content-length"] = String(request.body.byteLength);

  return new Promise((resolve, reject) => {
    const transport = url.protocol === "https:" ? https : http;
    let req: http.ClientRequest;
    try {
      req = transport.request(url, {
        method: request.method,
        agent: agents[url.protocol as "http:" | "https:"],
        lookup: options.allowPrivateTargets ? undefined : guardedLookup,
        headers,
        signal: deadline,
      });
    } catch (error) {
      return reject(new AppError("invalid_request", `fetch: ${(error as Error).message}`));
    }
    req.on("error", (error) => reject(describe(error)));
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxResponseBytes) {
          res.destroy();
          return reject(
            new AppError(
              "payload_too_large",
              `fetch: response body exceeds ${options.maxResponseBytes} bytes`,
            ),
          );
        }
        chunks.push(chunk);
      });
      res.on("error", (error) => reject(describe(error)));
      res.on("end", () => {
        const headerList: Array<[string, string]> = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          headerList.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
        }
        resolve({
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? "",
          headers: headerList,
          body: request.method === "HEAD" ? null : new Uint8Array(Buffer.concat(chunks)),
          url: url.toString(),
        });
      });
    });
    req.end(request.body ? Buffer.from(request.body) : undefined);
  });
}

function describe(error: Error): AppError {
  if (error instanceof BlockedAddressError) return new AppError("invalid_request", `fetch: ${error.message}`);
  if (error.name === "AbortError")
    return new AppError("function_timeout", "fetch: the function's time ran out");
  const code = (error as NodeJS.ErrnoException).code;
  return new AppError("unavailable", `fetch: ${code ? `${code} ` : ""}${error.message}`.slice(0, 300));
}
