import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";

/**
 * `Cache-Control: no-store` on every answer that does not say otherwise (RFC 9111 §5.2.2.5). What
 * the API answers belongs to one credential, and some answers hold a secret shown once (a new API
 * key, a webhook endpoint's signing secret, an OAuth app's client secret): no browser or shared cache
 * may keep them. One rule for every route, as Stripe sends it on every API response, so a new route
 * that returns a secret cannot forget it.
 */
export function noStore(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (!c.res.headers.has("cache-control")) c.res.headers.set("Cache-Control", "no-store");
  };
}
