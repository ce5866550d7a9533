import {
  AppError,
  BlockedAddressError,
  disposable,
  tracer,
  type Disposable,
  type TraceSpan,
} from "../core/index.ts";
import type { HostSocket, OutboundRequest, OutboundResponse, SocketEvents } from "../sandbox/index.ts";
import {
  createGuardedHttpClient,
  OutboundRequestError,
  ResponseTooLargeError,
  UnsupportedSchemeError,
  type GuardedHttpClient,
} from "./guarded-http.ts";
import { connectSocket } from "./websocket.ts";

/**
 * A function's outbound `fetch`, made by the host through the guarded HTTP client it
 * shares with webhooks (runtime/guarded-http.ts: no loopback, private, link-local or
 * metadata addresses unless the operator allows them, no DNS rebinding). Redirects are
 * followed by hand, up to 20, each hop judged again. The response body is read whole,
 * up to a limit.
 */

export interface OutboundOptions {
  allowPrivateTargets: boolean;
  maxResponseBytes: number;
  /** Largest WebSocket message either way (`connect`); none: WebSockets are refused. */
  maxSocketMessageBytes?: number;
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

export type OutboundFetch = ((
  request: OutboundRequest,
  deadline: AbortSignal,
) => Promise<OutboundResponse>) & {
  /** A function's `new WebSocket(url)`, through the same guard (runtime/websocket.ts); absent: refused. */
  connect?: OutboundConnect;
};
export type OutboundConnect = (
  url: string,
  protocols: string[],
  events: SocketEvents,
  handshakeTimeoutMs: number,
) => HostSocket;

export function createOutboundFetch(
  options: OutboundOptions,
): OutboundFetch & Disposable & { connect?: OutboundConnect } {
  const client = createGuardedHttpClient({
    allowPrivateTargets: options.allowPrivateTargets,
    maxSockets: 256,
  });
  const fetchOnce = async (request: OutboundRequest, deadline: AbortSignal): Promise<OutboundResponse> => {
    let current = request;
    for (let hop = 0; ; hop++) {
      const response = await send(current, deadline, client, options);
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
  const { maxSocketMessageBytes } = options;
  const connect: OutboundConnect | undefined =
    maxSocketMessageBytes === undefined
      ? undefined
      : (url, protocols, events, handshakeTimeoutMs) =>
          connectSocket(url, protocols, events, {
            allowPrivateTargets: options.allowPrivateTargets,
            userAgent: options.userAgent,
            maxMessageBytes: maxSocketMessageBytes,
            handshakeTimeoutMs,
          });
  return disposable(
    Object.assign(fetchOnce, {
      dispose: () => client.dispose(),
      ...(connect ? { connect } : {}),
    }),
  );
}

/**
 * A function's outbound `fetch` as a client span, a child of its invocation's (tracing on), sent
 * with that span's `traceparent` (W3C Trace Context) in place of any the function set (and its
 * `tracestate`, which would no longer match). The span holds the method, the host and port and
 * the status: never the path or query (they may carry a token), nor a header.
 */
export async function tracedFetch(
  parent: TraceSpan,
  request: OutboundRequest,
  deadline: AbortSignal,
  fetch: OutboundFetch,
): Promise<OutboundResponse> {
  const current = tracer();
  if (current === undefined) return fetch(request, deadline);
  const url = URL.canParse(request.url) ? new URL(request.url) : undefined;
  const span = current.start(request.method, {
    kind: "client",
    parent,
    attributes: {
      "http.request.method": request.method,
      "server.address": url?.hostname,
      "server.port": url && Number(url.port || (url.protocol === "https:" ? 443 : 80)),
      "url.scheme": url?.protocol.slice(0, -1),
    },
  });
  const headers = request.headers.filter(([name]) => !TRACE_CONTEXT_HEADERS.has(name.toLowerCase()));
  headers.push(["traceparent", span.traceparent]);
  try {
    const response = await fetch({ ...request, headers }, deadline);
    span.set({ "http.response.status_code": response.status });
    // A client's span fails on a 4xx too: the request it made did not succeed.
    if (response.status >= 400) span.fail(String(response.status));
    return response;
  } catch (error) {
    span.fail(error);
    throw error;
  } finally {
    span.end();
  }
}

const TRACE_CONTEXT_HEADERS = new Set(["traceparent", "tracestate"]);

async function send(
  request: OutboundRequest,
  deadline: AbortSignal,
  client: GuardedHttpClient,
  options: OutboundOptions,
): Promise<OutboundResponse> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new AppError("invalid_request", `fetch: invalid URL '${request.url.slice(0, 200)}'`);
  }
  const headers: Record<string, string> = { "user-agent": options.userAgent };
  for (const [name, value] of request.headers) {
    const lower = name.toLowerCase();
    if (DROPPED_REQUEST_HEADERS.has(lower)) continue;
    headers[lower] = headers[lower] && lower !== "user-agent" ? `${headers[lower]}, ${value}` : value;
  }
  try {
    const response = await client.request({
      method: request.method,
      url,
      headers,
      body: request.body,
      signal: deadline,
      maxBodyBytes: options.maxResponseBytes,
      overflow: "fail",
    });
    return {
      status: response.status,
      statusText: response.statusText,
      headers: response.rawHeaders,
      body: request.method === "HEAD" ? null : new Uint8Array(response.body),
      url: url.toString(),
    };
  } catch (error) {
    throw describe(error as Error);
  }
}

/** The client's errors as the function sees them: its fault (400), its time (504) or the network's (503). */
function describe(error: Error): AppError {
  if (
    error instanceof BlockedAddressError ||
    error instanceof UnsupportedSchemeError ||
    error instanceof OutboundRequestError
  ) {
    return new AppError("invalid_request", `fetch: ${error.message}`);
  }
  if (error instanceof ResponseTooLargeError) {
    return new AppError("payload_too_large", `fetch: response body exceeds ${error.maxBytes} bytes`);
  }
  if (error.name === "AbortError")
    return new AppError("function_timeout", "fetch: the function's time ran out");
  const code = (error as NodeJS.ErrnoException).code;
  return new AppError("unavailable", `fetch: ${code ? `${code} ` : ""}${error.message}`.slice(0, 300));
}
