import type { MiddlewareHandler } from "hono";
import { randomBase62 } from "../../core/index.ts";
import type { AppEnv } from "../env.ts";

/** A client's X-Request-Id is kept when well-formed; otherwise one is made. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = c.req.header("x-request-id");
    const id = given && WELL_FORMED.test(given) ? given : `req_${randomBase62(20)}`;
    c.set("requestId", id);
    await next();
    c.res.headers.set("X-Request-Id", id);
  };
}
