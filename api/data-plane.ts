import type { IncomingMessage, ServerResponse } from "node:http";
import type { ReadableStream } from "node:stream/web";
import { AppError } from "../core/index.ts";
import type { FunctionInvoker, FunctionResponse } from "../runtime/index.ts";
import type { ApiDeps } from "./env.ts";
import type { Authenticated, Authenticator } from "./middleware/auth.ts";
import { readIncoming } from "./middleware/json-body.ts";
import { requestIdFrom } from "./middleware/request-id.ts";
import { recordRequest } from "./observe.ts";
import { asAppError, problemParts } from "./problem.ts";
import { invocationHeaders, isApiKeyHeader, serveInvocation } from "./routes/functions.ts";

/**
 * The invocation data plane: `/v1/functions/{id}/invoke…` served straight off Node's
 * request and response, beside the app rather than through it. The same steps as the
 * app's (request id, authentication and rate limit, `serveInvocation`, problem bodies,
 * metrics and the request log), without a Fetch Request, a router, a middleware chain
 * or a Fetch Response with its Headers: on a trivial function that plumbing cost more
 * CPU than the isolate (bench/README.md, function-invoke). Anything unusual (a host or
 * path that is not already canonical) is left to the app, which answers it the same way.
 */
export interface DataPlaneDeps extends Pick<ApiDeps, "config" | "rateLimiter" | "clock" | "metrics" | "log"> {
  authenticate: Authenticator;
  invoker: FunctionInvoker;
}

/** `/v1/functions/{id}/invoke`, then the end, a query, or more path. */
const INVOKE = /^\/v1\/functions\/([^/?#]+)\/invoke(?=([/?#]|$))/;
// As @hono/node-server takes a URL as is (no normalization needed): anything else goes to the app.
const CANONICAL_PATH = /^\/[!#$&-;=?-\[\]_a-z~]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;
const CANONICAL_HOST = /^[a-z0-9._-]+(?::[1-9][0-9]{0,4})?$/;

/** Returns a Node request handler that serves invocations and says whether it took the request. */
export function createDataPlane(deps: DataPlaneDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const path = req.url ?? "";
    const host = req.headers.host;
    if (!path.startsWith("/v1/functions/") || host === undefined) return false;
    const match = INVOKE.exec(path);
    if (!match || !CANONICAL_PATH.test(path) || DOT_SEGMENT.test(path) || !CANONICAL_HOST.test(host))
      return false;
    if (host.endsWith(":80")) return false;
    let ref: string;
    try {
      ref = decodeURIComponent(match[1]!);
    } catch {
      return false;
    }
    const route = match[2] === "/" ? "/v1/functions/:id/invoke/*" : "/v1/functions/:id/invoke";
    void serve(deps, req, res, { ref, route, url: `http://${host}${path}` });
    return true;
  };
}

async function serve(
  deps: DataPlaneDeps,
  req: IncomingMessage,
  res: ServerResponse,
  target: { ref: string; route: string; url: string },
): Promise<void> {
  const started = performance.now();
  const method = req.method ?? "GET";
  const given = req.headers["x-request-id"];
  const requestId = requestIdFrom(typeof given === "string" ? given : undefined);
  let status = 500;
  let caller: Authenticated | undefined;
  try {
    const authorization = req.headers.authorization;
    // Only a Tessera key is authenticated here; other credentials are the function's business.
    if (isApiKeyHeader(authorization)) caller = await deps.authenticate(authorization);
    const { response, headers } = await serveInvocation(deps.invoker, deps, {
      ref: target.ref,
      requestId,
      method,
      url: target.url,
      principal: caller?.principal,
      authorization,
      headers: invocationHeaders(req.rawHeaders, caller !== undefined),
      readBody: (maxBytes) => readIncoming(req, maxBytes),
      depth: 0,
    });
    status = response.status;
    await write(res, method, response, { "x-request-id": requestId, ...caller?.rateLimit, ...headers });
  } catch (error) {
    const problem = problemParts(asAppError(error, requestId, deps.log), requestId);
    status = problem.status;
    if (res.headersSent) res.destroy();
    else {
      res.writeHead(status, {
        ...caller?.rateLimit,
        ...problem.headers,
        "x-request-id": requestId,
        "content-length": Buffer.byteLength(problem.body),
      });
      res.end(problem.body);
    }
  } finally {
    const seconds = (performance.now() - started) / 1000;
    recordRequest(deps, {
      requestId,
      method,
      route: target.route,
      status,
      seconds,
      org: caller?.principal.orgId,
    });
  }
}

/**
 * Writes a function's response: headers once (Node's own validation stands guard over what
 * the guest sent), a whole body in the same write (at the end of the turn, with the others:
 * end-together.ts), a stream chunk by chunk with backpressure, cancelled when the client goes away.
 */
async function write(
  res: ServerResponse,
  method: string,
  response: FunctionResponse,
  extra: Record<string, string>,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of response.headers) {
    const before = headers[name];
    if (before === undefined) headers[name] = name === "set-cookie" ? [value] : value;
    else if (Array.isArray(before)) before.push(value);
    else headers[name] = `${before}, ${value}`;
  }
  // Ours win over the function's (names compared as HTTP does, without case).
  for (const name in extra) headers[name.toLowerCase()] = extra[name]!;
  const { body } = response;
  const whole = body === null || typeof body === "string" || body instanceof Uint8Array;
  if (typeof body === "string") headers["content-length"] = String(Buffer.byteLength(body));
  else if (body instanceof Uint8Array) headers["content-length"] = String(body.byteLength);
  else if (body === null && method !== "HEAD" && response.status !== 204 && response.status !== 304)
    headers["content-length"] = "0";
  try {
    if (response.statusText) res.writeHead(response.status, response.statusText, headers);
    else res.writeHead(response.status, headers);
  } catch (cause) {
    if (!whole) void body.cancel().catch(() => {});
    throw new AppError("function_failed", "The function's response has an invalid header or status text", {
      cause,
    });
  }
  if (whole) {
    res.end(body);
    return;
  }
  await pipe(body, res);
}

async function pipe(body: ReadableStream<Uint8Array>, res: ServerResponse): Promise<void> {
  const reader = body.getReader();
  const cancel = () => void reader.cancel(new Error("the client went away")).catch(() => {});
  res.once("close", cancel);
  res.flushHeaders();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off("drain", go);
            res.off("close", go);
            resolve();
          };
          res.on("drain", go);
          res.on("close", go);
        });
      }
    }
    res.end();
  } catch {
    // The body failed mid-way (a limit, the function's own stream): the client sees a cut-off response.
    res.destroy();
  } finally {
    res.off("close", cancel);
  }
}
