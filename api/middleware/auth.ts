import type { Context, MiddlewareHandler } from "hono";
import { AppError, type Clock, type Config, type Logger, type Plan } from "../../core/index.ts";
import {
  findOAuthPrincipal,
  hasScope,
  isOAuthPrincipal,
  looksLikeOAuthToken,
  touchApiKey,
  touchInstallation,
  type KeyPrincipal,
  type ScopeName,
} from "../../engines/index.ts";
import { invocationPrincipalOf } from "../../runtime/index.ts";
import type { Store } from "../../store/index.ts";
import type { KeyCache } from "../auth/key-cache.ts";
import type { AppEnv } from "../env.ts";
import type { RateLimiter } from "../rate-limit/index.ts";

const CHALLENGE = 'Bearer realm="tessera"';
const TOUCH_INTERVAL_MS = 60_000;

export interface AuthDeps {
  keys: KeyCache;
  rateLimiter: RateLimiter;
  config: Config;
  store: Store;
  clock: Clock;
  log: Logger;
}

/** A caller known by its key, and the X-RateLimit-* headers its response carries. */
export interface Authenticated {
  principal: KeyPrincipal;
  rateLimit: Record<string, string>;
}

/**
 * Takes a request's `Authorization` header, or with none the principal an in-process
 * request carries (runtime's `invocationPrincipalOf`); throws the 401 or 429 problem.
 */
export type Authenticator = (header: string | undefined, carried?: KeyPrincipal) => Promise<Authenticated>;

/**
 * Authenticates `Authorization: Bearer <key>` (RFC 6750) and counts the request against
 * the key's rate limit: no credential → 401 with a bare challenge; a bad or revoked one →
 * 401 `error="invalid_token"`; over the limit → 429. One per process: the app's middleware
 * and the invocation path (api/invocation/serve.ts) share it.
 */
export function createAuthenticator(deps: AuthDeps): Authenticator {
  // last_used_at is written at most once a minute per key and node: no write per request.
  const lastTouched = new Map<string, number>();
  const recordUse = (principal: KeyPrincipal) => {
    const { keyId } = principal;
    const now = deps.clock.nowMs();
    if (now - (lastTouched.get(keyId) ?? 0) < TOUCH_INTERVAL_MS) return;
    lastTouched.set(keyId, now);
    touchCredential(deps.store, principal, new Date(now)).catch((error: unknown) =>
      deps.log.warn("credential touch failed", { error }),
    );
  };
  return async (header, carried) => {
    if (!header && carried) {
      recordUse(carried);
      return { principal: carried, rateLimit: await limitRate(deps, carried.keyId, carried.plan) };
    }
    if (!header) {
      throw new AppError("unauthenticated", "Send your API key as Authorization: Bearer sk_live_…", {
        headers: { "WWW-Authenticate": CHALLENGE },
      });
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const principal = match ? await resolveBearer(deps, match[1]!) : undefined;
    if (!principal) {
      throw new AppError("invalid_token", "The API key or access token is invalid, expired or revoked", {
        headers: { "WWW-Authenticate": `${CHALLENGE}, error="invalid_token"` },
      });
    }
    recordUse(principal);
    return { principal, rateLimit: await limitRate(deps, principal.keyId, principal.plan) };
  };
}

/** Records when a credential was last used: an API key's row, or its OAuth installation's. */
function touchCredential(store: Store, principal: KeyPrincipal, now: Date): Promise<void> {
  if (!isOAuthPrincipal(principal)) return touchApiKey(store, principal.keyId, now);
  const { installationId } = principal.oauth;
  // A client credentials token has no installation: the app acts for itself.
  return installationId ? touchInstallation(store, installationId, now) : Promise.resolve();
}

/**
 * An API key (`sk_live_…`, through the key cache) or an OAuth access token. Tokens are not cached:
 * one indexed lookup per request, so a disconnect or revocation stops a token at its next use on
 * every node.
 */
function resolveBearer(deps: AuthDeps, secret: string): Promise<KeyPrincipal | undefined> {
  return looksLikeOAuthToken(secret)
    ? findOAuthPrincipal(deps.store, deps.clock, secret)
    : deps.keys.resolve(secret);
}

/**
 * The app's authentication middleware: sets `principal` and `rateLimit` (see `rateLimitHeaders`).
 * With no `Authorization` header, `session` may find a dashboard session instead.
 */
export function authenticate(
  authenticator: Authenticator,
  session?: (c: Context<AppEnv>) => Promise<KeyPrincipal | undefined>,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization");
    const carried = invocationPrincipalOf(c.req.raw) ?? (!header && session ? await session(c) : undefined);
    const { principal, rateLimit } = await authenticator(header, carried);
    c.set("principal", principal);
    c.set("rateLimit", rateLimit);
    await next();
  };
}

/**
 * Puts the X-RateLimit-* headers of whoever authenticated the request (`rateLimit`: the
 * middleware above, or the invocation path) on its response, a problem response too.
 */
export function rateLimitHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const headers = c.get("rateLimit") as Record<string, string> | undefined;
    if (headers) for (const name in headers) c.res.headers.set(name, headers[name]!);
  };
}

/**
 * Counts one request against `budget`'s limit for `plan`: the X-RateLimit-* headers
 * for the response, or a 429 with them and `Retry-After` once the window is spent.
 */
export async function limitRate(
  deps: { rateLimiter: RateLimiter; config: Config; clock: Clock },
  budget: string,
  plan: Plan,
): Promise<Record<string, string>> {
  const decision = await deps.rateLimiter.hit(budget, deps.config.rateLimits[plan]);
  const headers = {
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    "X-RateLimit-Reset": String(decision.resetAt),
  };
  if (!decision.allowed) {
    const retryAfter = Math.max(1, decision.resetAt - Math.floor(deps.clock.nowMs() / 1000));
    throw new AppError("rate_limited", `Rate limit of ${decision.limit} requests exceeded; retry later`, {
      headers: { ...headers, "Retry-After": String(retryAfter) },
    });
  }
  return headers;
}

/**
 * GET/HEAD need `<name>:read`; every other method needs `<name>:write`, unless `fixed` says which
 * (asking SYNC is a POST that changes nothing: `sync:read`).
 */
export function requireScope(name: ScopeName, fixed?: "read" | "write"): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const access = fixed ?? (c.req.method === "GET" || c.req.method === "HEAD" ? "read" : "write");
    if (!hasScope(c.get("principal").scopes, name, access)) {
      throw new AppError("insufficient_scope", `This key lacks the ${name}:${access} scope`, {
        headers: {
          "WWW-Authenticate": `${CHALLENGE}, error="insufficient_scope", scope="${name}:${access}"`,
        },
      });
    }
    await next();
  };
}
