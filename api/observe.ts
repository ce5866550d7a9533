import { tracer, type TraceSpan } from "../core/index.ts";
import type { ApiDeps } from "./env.ts";

export interface ObservedRequest {
  requestId: string;
  method: string;
  /** The route pattern (a bounded label value), or "unmatched". */
  route: string;
  status: number;
  seconds: number;
  org: string | undefined;
}

/** Probes and scrapes: a load balancer's every few seconds would bury the requests in traces. */
const UNTRACED = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * The span of one request while tracing is on (docs/tracing.md): the caller's trace continued
 * when it sent a well-formed `traceparent` (W3C Trace Context), else a new one. Named and given
 * its route, status and organization by `recordRequest`, which ends it. Never the path or the
 * query (a setup link's token is a path), nor a header.
 */
export function startRequestSpan(
  method: string,
  path: string,
  traceparent: string | undefined,
): TraceSpan | undefined {
  const current = tracer();
  if (current === undefined || UNTRACED.has(path)) return undefined;
  return current.start(method, {
    kind: "server",
    parent: traceparent,
    attributes: { "http.request.method": method },
  });
}

/**
 * Counts and times one request by route pattern and logs it: the app and the invocation path's
 * socket adapter alike. Ends its span, if it has one.
 */
export function recordRequest(
  deps: Pick<ApiDeps, "metrics" | "log">,
  request: ObservedRequest,
  span?: TraceSpan,
): void {
  deps.metrics.observeRequest(request.method, request.route, request.status, request.seconds);
  deps.log.info("request", {
    request_id: request.requestId,
    method: request.method,
    route: request.route,
    status: request.status,
    ms: Math.round(request.seconds * 10_000) / 10,
    org: request.org,
  });
  if (span) endRequestSpan(span, request);
}

/** A server span is named by method and route, and failed by a 5xx only (a 4xx is the caller's). */
function endRequestSpan(span: TraceSpan, request: ObservedRequest): void {
  const matched = request.route !== "unmatched";
  if (matched) span.rename(`${request.method} ${request.route}`);
  span.set({
    "http.route": matched ? request.route : undefined,
    "http.response.status_code": request.status,
    "tessera.request_id": request.requestId,
    "tessera.organization_id": request.org,
  });
  if (request.status >= 500) span.fail(String(request.status));
  span.end();
}
