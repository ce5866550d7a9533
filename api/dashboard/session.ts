import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { IncomingMessage } from "node:http";
import { AppError } from "../../core/index.ts";
import {
  csrfFor,
  csrfMatches,
  resolveSession,
  SESSION_ABSOLUTE_MS,
  type KeyPrincipal,
  type SessionPrincipal,
} from "../../engines/index.ts";
import type { ApiDeps, AppEnv } from "../env.ts";

/** The session cookie: HttpOnly, SameSite=Lax, Secure when the public URL is https. */
export const SESSION_COOKIE = "tessera_session";

export function setSessionCookie(c: Context<AppEnv>, deps: ApiDeps, token: string): void {
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "Lax",
    secure: deps.config.publicUrl?.startsWith("https:") ?? false,
    path: "/",
    maxAge: Math.floor(SESSION_ABSOLUTE_MS / 1000),
  });
}

export function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/" });
}

/** The signed-in user of this request and the CSRF token its pages embed, or undefined. */
export async function sessionOf(
  c: Context<AppEnv>,
  deps: ApiDeps,
): Promise<{ session: SessionPrincipal; csrf: string } | undefined> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token || token.length > 100) return undefined;
  const session = await resolveSession(deps.store, deps.clock, token);
  return session ? { session, csrf: csrfFor(token) } : undefined;
}

/**
 * The API accepts a dashboard session (the same cookie) from its own origin, acting as the user with
 * the role's scopes in the session's organization. A request that changes anything must also carry
 * the session's CSRF token as `X-CSRF-Token` and come from this origin: a cookie alone, which any
 * site's form could send, is never enough. Undefined when there is no session cookie.
 */
export async function sessionPrincipal(c: Context<AppEnv>, deps: ApiDeps): Promise<KeyPrincipal | undefined> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) return undefined;
  const signed = await sessionOf(c, deps);
  if (!signed) {
    throw new AppError("invalid_token", "The session has ended: sign in again", {
      headers: { "WWW-Authenticate": 'Bearer realm="tessera", error="invalid_token"' },
    });
  }
  const safe = c.req.method === "GET" || c.req.method === "HEAD" || c.req.method === "OPTIONS";
  if (!safe && !(sameOrigin(c) && csrfMatches(signed.session, c.req.header("x-csrf-token")))) {
    throw new AppError(
      "insufficient_scope",
      "A session's changes need this origin and its X-CSRF-Token header",
    );
  }
  return principalOfSession(signed.session);
}

/**
 * A signed-in user as the API's caller: the role's scopes in the session's organization, the user
 * beside them (`ctx.user` in a function). The session's id stands where a key's id would, for rate
 * limits and records of who did what; its token never leaves the session.
 */
export function principalOfSession(session: SessionPrincipal): KeyPrincipal {
  return {
    keyId: session.sessionId,
    orgId: session.orgId,
    orgName: session.orgName,
    plan: session.plan,
    scopes: session.scopes,
    kind: "full_access",
    user: { id: session.user.id, email: session.user.email, name: session.user.name, role: session.role },
  };
}

/** The browser says the request comes from this origin (Fetch Metadata, else Origin against Host). */
function sameOrigin(c: Context<AppEnv>): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site) return site === "same-origin";
  const origin = c.req.header("origin");
  if (!origin) return false;
  try {
    return new URL(origin).host === c.req.header("host");
  } catch {
    return false;
  }
}

/** The client's address, for rate limits and the sessions list (the socket's; no proxy header is trusted). */
export function addressOf(c: Context<AppEnv>): string {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming?.socket.remoteAddress ?? "local";
}

/** Every dashboard answer: never cached (pages hold secrets and CSRF tokens), never framed. */
export function noStore(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
    c.header("X-Frame-Options", "DENY");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "same-origin");
  };
}
