import { AppError, isAppError } from "../../core/index.ts";
import { hasScope, looksLikeOAuthToken, type KeyPrincipal } from "../../engines/index.ts";
import {
  isFunctionRef,
  type ActiveFunction,
  type FunctionResponse,
  type IncomingInvocation,
} from "../../runtime/index.ts";
import type { ApiDeps } from "../env.ts";
import { limitRate, type Authenticator } from "../middleware/auth.ts";
import type { HeaderPairs, InvocationOrigin } from "./headers.ts";

const CHALLENGE = 'Bearer realm="tessera"';

export interface InvocationDeps extends Pick<ApiDeps, "config" | "rateLimiter" | "clock" | "invoker"> {
  authenticate: Authenticator;
  /** Where the adapter's answers are served (headers.ts): the dashboard's origin, sandboxed, unless said. */
  origin?: InvocationOrigin;
}

/** One call of `/v1/functions/{ref}/invoke…`, as an adapter read it off its request. */
export interface InvocationCall {
  /** The `{ref}` path segment, decoded: a function name or id. */
  ref: string;
  requestId: string;
  method: string;
  /** The original public URL. */
  url: string;
  authorization: string | undefined;
  /** The caller an in-process request carries (a trigger run's `ctx.platform.fetch`). */
  carried: KeyPrincipal | undefined;
  /** The request's headers for the function (`headers.ts`), without `authorization` when asked. */
  headers(withoutAuthorization: boolean): HeaderPairs;
  /** The request body, at most `maxBytes` (413 past it). */
  readBody(maxBytes: number): Promise<Buffer>;
  /** How many invocations deep this one is (`ctx.platform.fetch` nesting). */
  depth: number;
}

/**
 * What an adapter needs to answer, success or failure: the X-RateLimit-* headers (the
 * caller's key's, or the public function's shared budget) and the caller, once known.
 */
export interface InvocationOutcome {
  headers: Record<string, string>;
  principal: KeyPrincipal | undefined;
}

/** What runs an admitted invocation: the isolate's answer (`invoke`), or a WebSocket upgrade's (upgrade.ts). */
export type InvocationRunner = (
  deps: InvocationDeps,
  fn: ActiveFunction,
  request: IncomingInvocation,
) => Promise<FunctionResponse>;

const invoke: InvocationRunner = (deps, fn, request) => deps.invoker.invoke(fn, request);

/** Whether an `Authorization` header carries a Tessera API key (invocations authenticate only those). */
export function isApiKeyHeader(header: string | undefined): boolean {
  return /^Bearer\s+sk_/i.test(header ?? "");
}

/** Whether an `Authorization` header has the shape of one of our OAuth access tokens. */
function isOAuthTokenHeader(header: string | undefined): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match !== null && looksLikeOAuthToken(match[1]!);
}

/**
 * The caller of an OAuth access token we issued, or undefined when the token is not ours (or no
 * longer live): a function may take bearer tokens of its own that happen to have the same shape, so
 * an unknown one passes through to it like any other `Authorization`, and a private function then
 * answers 401 as to anyone anonymous.
 */
async function ourOAuthCaller(deps: InvocationDeps, authorization: string) {
  try {
    return await deps.authenticate(authorization);
  } catch (error) {
    if (isAppError(error) && error.code === "invalid_token") return undefined;
    throw error;
  }
}

/**
 * Step 3, the core: one invocation, whichever adapter it came through.
 *
 * 1. The caller: a Tessera API key, or an OAuth access token we issued, is authenticated (and
 *    counted against its rate limit) and consumed here: the function sees the caller as
 *    `ctx.user`, never the credential. Any other `Authorization` is the function's own business
 *    and passes through.
 * 2. The function: by name or id within the caller's organization; anonymous callers name a
 *    public one by id (a name means something only within an organization).
 * 3. Permission: a private function needs `functions:read`; anonymous calls to a public one
 *    share one budget, the organization's plan limit for it, so a flood stops at 429 before
 *    it reaches the isolate.
 * 4. The body, under the function's request size limit, then the isolate answers (`run`: a
 *    WebSocket upgrade comes through the same steps and runs as one, upgrade.ts).
 */
export async function serveInvocation(
  deps: InvocationDeps,
  call: InvocationCall,
  outcome: InvocationOutcome,
  run: InvocationRunner = invoke,
): Promise<FunctionResponse> {
  const { ref, authorization } = call;
  if (!isFunctionRef(ref)) {
    throw new AppError("not_found", `No such function: '${ref.slice(0, 100)}'`);
  }
  let keyed = isApiKeyHeader(authorization);
  let principal: KeyPrincipal | undefined;
  if (keyed || call.carried) {
    const caller = await deps.authenticate(keyed ? authorization : undefined, call.carried);
    principal = caller.principal;
    outcome.headers = caller.rateLimit;
    outcome.principal = principal;
  } else if (isOAuthTokenHeader(authorization)) {
    const caller = await ourOAuthCaller(deps, authorization!);
    if (caller) {
      keyed = true;
      principal = caller.principal;
      outcome.headers = caller.rateLimit;
      outcome.principal = principal;
    }
  }
  const fn = await deps.invoker.resolve(principal?.orgId, ref);
  if (!fn && principal) throw new AppError("not_found", `No such function: '${ref}'`);
  if (!fn || (fn.auth === "key" && !principal)) {
    if (authorization) {
      throw new AppError("invalid_token", "This function needs a Tessera API key (Bearer sk_live_…)", {
        headers: { "WWW-Authenticate": `${CHALLENGE}, error="invalid_token"` },
      });
    }
    throw new AppError("unauthenticated", "Send your API key as Authorization: Bearer sk_live_…", {
      headers: { "WWW-Authenticate": CHALLENGE },
    });
  }
  if (fn.auth === "key" && !hasScope(principal!.scopes, "functions", "read")) {
    throw new AppError("insufficient_scope", "This key lacks the functions:read scope", {
      headers: { "WWW-Authenticate": `${CHALLENGE}, error="insufficient_scope", scope="functions:read"` },
    });
  }
  if (!principal) outcome.headers = await limitRate(deps, `public:${fn.functionId}`, fn.plan);
  const { method } = call;
  const body =
    method === "GET" || method === "HEAD" ? null : await call.readBody(deps.config.functions.maxRequestBytes);
  return run(deps, fn, {
    requestId: call.requestId,
    method,
    url: call.url,
    headers: call.headers(keyed),
    body: body && body.length > 0 ? new Uint8Array(body.buffer, body.byteOffset, body.byteLength) : null,
    principal,
    authorization: principal ? authorization : undefined,
    depth: call.depth,
  });
}
