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

/** Counts and times one request by route pattern and logs it: the app and the invocation path's socket adapter alike. */
export function recordRequest(deps: Pick<ApiDeps, "metrics" | "log">, request: ObservedRequest): void {
  deps.metrics.observeRequest(request.method, request.route, request.status, request.seconds);
  deps.log.info("request", {
    request_id: request.requestId,
    method: request.method,
    route: request.route,
    status: request.status,
    ms: Math.round(request.seconds * 10_000) / 10,
    org: request.org,
  });
}
