import type { MiddlewareHandler } from "hono";
import { randomBase62 } from "../../core/index.ts";
import type { AppEnv } from "../env.ts";

/** A client's X-Request-Id is kept when well-formed; otherwise one is made. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the client's X-Request-Id when well-formed, else a new one. */
export function requestIdFrom(given: string | undefined): string {
  return given && WELL_FORMED.test(given) ? given : `req_${randomBase62(20)}`;
}

export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = requestIdFrom(c.req.header("x-request-id"));
    c.set("requestId", id);
    await next();
    c.res.headers.set("X-Request-Id", id);
  };
}
