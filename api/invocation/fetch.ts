import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import { invocationDepthOf, invocationPrincipalOf } from "../../runtime/index.ts";
import type { AppEnv } from "../env.ts";
import { readBody } from "../middleware/json-body.ts";
import { answerHeaders, headersFromFetch, headersFromNode } from "./headers.ts";
import { serveInvocation, type InvocationDeps, type InvocationOutcome } from "./serve.ts";

/**
 * Step 4b, the Fetch adapter: the app's handler for any method on
 * `/v1/functions/{id}/invoke` and below. It serves what the socket adapter leaves to the
 * app (non-canonical URLs), `app.request()` in tests, and `ctx.platform.fetch` in-process,
 * whose Request carries the caller of a trigger run and the nesting depth. Errors are
 * thrown to the app's one error handler; the app adds the rate-limit headers (`rateLimit`).
 */
export function fetchInvocation(deps: InvocationDeps) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    const outcome: InvocationOutcome = { headers: {}, principal: undefined };
    try {
      const response = await serveInvocation(
        deps,
        {
          ref: c.req.param("id") ?? "",
          requestId: c.get("requestId"),
          method: c.req.method,
          url: c.req.url,
          authorization: c.req.header("authorization"),
          carried: invocationPrincipalOf(c.req.raw),
          headers: (withoutAuthorization) =>
            incoming
              ? headersFromNode(incoming.rawHeaders, withoutAuthorization)
              : headersFromFetch(c.req.raw.headers, withoutAuthorization),
          readBody: (maxBytes) => readBody(c, maxBytes),
          depth: invocationDepthOf(c.req.raw),
        },
        outcome,
      );
      const out = new Headers();
      const headers = answerHeaders(response.headers, outcome.headers, deps.origin ?? "main");
      for (const name in headers) {
        const value = headers[name]!;
        if (typeof value === "string") out.set(name, value);
        else for (const cookie of value) out.append(name, cookie);
      }
      // Text as bytes: a Fetch Response would add a content-type the function did not send.
      const body = typeof response.body === "string" ? Buffer.from(response.body) : response.body;
      return new Response(body as ConstructorParameters<typeof Response>[0], {
        status: response.status,
        ...(response.statusText ? { statusText: response.statusText } : {}),
        headers: out,
      });
    } finally {
      // As the authentication middleware does for other routes: the request log names the
      // caller's organization, and every response (a problem too) carries X-RateLimit-*.
      if (outcome.principal) c.set("principal", outcome.principal);
      c.set("rateLimit", outcome.headers);
    }
  };
}
