import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { IncomingMessage } from "node:http";
import { AppError } from "../core/index.ts";
import {
  actorOf,
  csrfFor,
  csrfMatches,
  resolveSession,
  SESSION_ABSOLUTE_MS,
  type Actor,
  type KeyPrincipal,
  type SessionPrincipal,
} from "../engines/index.ts";
import type { ApiDeps, AppEnv } from "../api/env.ts";
import { sameOrigin } from "./origin.ts";

/** The session cookie's name after its prefix (function invocations strip every `tessera_*` cookie). */
export const SESSION_COOKIE = "tessera_session";

/** Whether this origin is https (`TESSERA_PUBLIC_URL`): cookies are then Secure and `__Host-` prefixed. */
export function httpsOrigin(deps: ApiDeps): boolean {
  return deps.config.publicUrl?.startsWith("https:") ?? false;
}

/**
 * A cookie's name on this origin: `__Host-tessera_…` over https, which browsers accept only Secure,
 * with `Path=/` and no `Domain` (RFC 6265bis §4.1.3.2), so no sibling host or plain-http page can set
 * or shadow it; plain `tessera_…` over http, where a browser refuses the prefix.
 */
export function cookieName(deps: ApiDeps, name: string): string {
  return httpsOrigin(deps) ? `__Host-${name}` : name;
}

/** The session cookie: HttpOnly, SameSite=Lax, Secure and `__Host-` when this origin is https. */
export function setSessionCookie(c: Context, deps: ApiDeps, token: string): void {
  setCookie(c, cookieName(deps, SESSION_COOKIE), token, {
    httpOnly: true,
    sameSite: "Lax",
    secure: httpsOrigin(deps),
    path: "/",
    maxAge: Math.floor(SESSION_ABSOLUTE_MS / 1000),
  });
}

/**
 * Clears the session cookie under both names, each with the attributes it was set with (a browser
 * ignores a `__Host-` cookie without Secure): whichever this origin uses goes, and so does an
 * unprefixed one left from before the origin was https.
 */
export function clearSessionCookie(c: Context): void {
  deleteCookie(c, `__Host-${SESSION_COOKIE}`, { path: "/", secure: true });
  deleteCookie(c, SESSION_COOKIE, { path: "/" });
}

/** The signed-in user of this request and the CSRF token its pages embed, or undefined. */
export async function sessionOf(
  c: Context,
  deps: ApiDeps,
): Promise<{ session: SessionPrincipal; csrf: string } | undefined> {
  const token = getCookie(c, cookieName(deps, SESSION_COOKIE));
  if (!token || token.length > 100) return undefined;
  const session = await resolveSession(deps.store, deps.clock, token);
  return session ? { session, csrf: csrfFor(token) } : undefined;
}

/**
 * The API accepts a dashboard session (the same cookie) from its own origin, acting as the user with
 * the role's scopes in the session's organization. A request that changes anything must also carry
 * the session's CSRF token as `X-CSRF-Token` and come from this origin (`sameOrigin`, the rule of the
 * dashboard's forms too): a cookie alone, which any site's form could send, is never enough.
 * Undefined when there is no session cookie.
 */
export async function sessionPrincipal(c: Context<AppEnv>, deps: ApiDeps): Promise<KeyPrincipal | undefined> {
  const token = getCookie(c, cookieName(deps, SESSION_COOKIE));
  if (!token) return undefined;
  const signed = await sessionOf(c, deps);
  if (!signed) {
    throw new AppError("invalid_token", "The session has ended: sign in again", {
      headers: { "WWW-Authenticate": 'Bearer realm="tessera", error="invalid_token"' },
    });
  }
  const safe = c.req.method === "GET" || c.req.method === "HEAD" || c.req.method === "OPTIONS";
  if (
    !safe &&
    !(sameOrigin(c, deps.config.publicUrl) && csrfMatches(signed.session, c.req.header("x-csrf-token")))
  ) {
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

/** The signed-in user as the actor of what they change (`actorOf`: the user, never the session). */
export function sessionActor(session: SessionPrincipal): Actor {
  return actorOf(principalOfSession(session));
}

/** The client's address, for rate limits and the sessions list (the socket's; no proxy header is trusted). */
export function addressOf(c: Context): string {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming?.socket.remoteAddress ?? "local";
}

/** Every dashboard answer: never cached (pages hold secrets and CSRF tokens), never framed. */
export function pageHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
    c.header("X-Frame-Options", "DENY");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "same-origin");
  };
}
