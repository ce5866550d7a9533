import type { IncomingMessage, ServerResponse } from "node:http";
import type { ReadableStream } from "node:stream/web";
import { AppError, tracer, withinSpan, type Logger } from "../../core/index.ts";
import type { FunctionResponse } from "../../runtime/index.ts";
import type { Metrics } from "../metrics.ts";
import { readIncoming } from "../middleware/json-body.ts";
import { requestIdFrom } from "../middleware/request-id.ts";
import { recordRequest, startRequestSpan } from "../observe.ts";
import { asAppError, problemParts } from "../problem.ts";
import { answerHeaders, headersFromNode, type HeaderPairs, type InvocationOrigin } from "./headers.ts";
import { matchInvocation, type InvocationTarget } from "./match.ts";
import {
  serveInvocation,
  type InvocationCall,
  type InvocationDeps,
  type InvocationOutcome,
} from "./serve.ts";

export interface NodeInvocationDeps extends InvocationDeps {
  metrics: Metrics;
  log: Logger;
}

/**
 * Step 4a, the socket adapter: serves an invocation straight off Node's request and
 * response, and says whether it took the request. The server offers it every request
 * first (api/server.ts); what it does not take (not an invocation, or a path or host that
 * is not canonical) goes to the app, whose fetch adapter serves invocations the same way.
 *
 * Why not through the app: without a Fetch Request, a router, a middleware chain and a Fetch
 * Response with its Headers, a trivial invocation costs about a third less CPU
 * (bench/README.md, function-invoke). The steps are the app's: request id, the core
 * (`serve.ts`), problem bodies, metrics and the request log.
 */
export function createNodeInvocation(
  deps: NodeInvocationDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const target = matchInvocation(req.url ?? "", req.headers.host);
    if (!target) return false;
    void serveNode(deps, req, res, target);
    return true;
  };
}

async function serveNode(
  deps: NodeInvocationDeps,
  req: IncomingMessage,
  res: ServerResponse,
  target: InvocationTarget,
): Promise<void> {
  const started = performance.now();
  const method = req.method ?? "GET";
  const given = req.headers["x-request-id"];
  const requestId = requestIdFrom(typeof given === "string" ? given : undefined);
  const outcome: InvocationOutcome = { headers: {}, principal: undefined };
  const call = new NodeCall(req, target, requestId, method);
  const span = tracer() && startRequestSpan(method, target.route, headerOf(req.headers.traceparent));
  let status = 500;
  try {
    const response = await (span
      ? withinSpan(span, () => serveInvocation(deps, call, outcome))
      : serveInvocation(deps, call, outcome));
    status = response.status;
    await write(res, method, response, { "x-request-id": requestId, ...outcome.headers }, deps.origin);
  } catch (error) {
    status = writeProblem(res, error, requestId, outcome.headers, deps.log);
  } finally {
    const seconds = (performance.now() - started) / 1000;
    recordRequest(
      deps,
      { requestId, method, route: target.route, status, seconds, org: outcome.principal?.orgId },
      span,
    );
  }
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * An invocation as read off Node's request. A class rather than an object literal with two
 * arrow functions: the server's TypeScript loader (tsx, which keeps function names) names
 * every such function with an `Object.defineProperty` as it is made, ~1.7 µs of a trivial
 * invocation's main thread (`perf`, bench/README.md); methods are made once.
 */
class NodeCall implements InvocationCall {
  readonly ref: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly carried = undefined;
  readonly depth = 0;

  constructor(
    private readonly req: IncomingMessage,
    target: InvocationTarget,
    readonly requestId: string,
    readonly method: string,
  ) {
    this.ref = target.ref;
    this.url = target.url;
    this.authorization = req.headers.authorization;
  }

  headers(withoutAuthorization: boolean): HeaderPairs {
    return headersFromNode(this.req.rawHeaders, withoutAuthorization);
  }

  readBody(maxBytes: number): Promise<Buffer> {
    return readIncoming(this.req, maxBytes);
  }
}

/**
 * An invocation's failure as its problem+json answer (a response already under way is cut off
 * instead). Returns the problem's status, for the request log. The upgrade path (upgrade.ts)
 * answers a refused upgrade the same way.
 */
export function writeProblem(
  res: ServerResponse,
  error: unknown,
  requestId: string,
  headers: Record<string, string>,
  log: Logger,
): number {
  const problem = problemParts(asAppError(error, requestId, log), requestId);
  if (res.headersSent) {
    res.destroy();
    return problem.status;
  }
  res.writeHead(problem.status, {
    ...headers,
    ...problem.headers,
    "x-request-id": requestId,
    "content-length": Buffer.byteLength(problem.body),
  });
  res.end(problem.body);
  return problem.status;
}

/**
 * Writes a function's response: headers once, as the rule of headers.ts keeps them (Node's own
 * validation stands guard over what the guest sent), a whole body in the same write (at the end
 * of the turn, with the others: end-of-turn.ts), a stream chunk by chunk with backpressure,
 * cancelled when the client goes away.
 */
export async function write(
  res: ServerResponse,
  method: string,
  response: FunctionResponse,
  extra: Record<string, string>,
  origin: InvocationOrigin = "main",
): Promise<void> {
  const headers = answerHeaders(response.headers, extra, origin);
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
