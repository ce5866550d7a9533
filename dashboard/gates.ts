import type { Context, MiddlewareHandler } from "hono";
import { hasScope, type Access, type Role, type ScopeName } from "../engines/index.ts";
import type { DashboardEnv, Signed } from "./env.ts";
import { forbidden } from "./parts.ts";

/**
 * The gates of the dashboard's routes, as Hono middleware each route declares before its handler,
 * in the order they run: the session (`parts.signedIn`: else to sign-in), or a posted form with the
 * session's CSRF token (`parts.posted`: else to sign-in, or a 403 page), then the scope or role the
 * action needs (`requires`, `requiresRole`: else the 403 page naming the role). The handler reads
 * `c.var.signed` (and `c.var.form`) and checks none of it again.
 *
 * @example
 *   app.post("/settings/api-keys/:id/revoke", parts.posted, requires("keys", "write"), async (c) => {
 *     await deps.keys.revoke(c.var.signed.session.orgId, c.req.param("id"));
 *     return c.redirect("/settings/api-keys", 303);
 *   });
 */

export type { DashboardEnv, PostedEnv } from "./env.ts";

/** How a gate refuses a signed-in user: the 403 page (`forbidden`) unless a route says otherwise. */
export type Refusal<E extends DashboardEnv> = (c: Context<E>, signed: Signed) => Response | Promise<Response>;

/**
 * After `signedIn` or `posted`: the session's scopes cover `family:access` (write covers read),
 * else `refuse` answers (the 403 page naming the role).
 */
export function requires<E extends DashboardEnv = DashboardEnv>(
  family: ScopeName,
  access: Access,
  refuse: Refusal<E> = forbidden,
): MiddlewareHandler<E> {
  return async (c, next) => {
    const signed: Signed = c.var.signed;
    if (!hasScope(signed.session.scopes, family, access)) return refuse(c, signed);
    await next();
  };
}

/** After `signedIn` or `posted`: the session's role is `role` (an owner's pages), else the 403 page. */
export function requiresRole(role: Role): MiddlewareHandler<DashboardEnv> {
  return async (c, next) => {
    const { signed } = c.var;
    if (signed.session.role !== role) return forbidden(c, signed);
    await next();
  };
}
