import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./env.ts";

/**
 * Every JSON body the API writes ends with a newline, as a line of text should: `curl -s` output
 * then ends its own line instead of running into the next command's (or the prompt). Three
 * places write JSON: handlers through `c.json` (this middleware), list pages (engines'
 * `listJson`, which caches the newline with the page) and problem bodies (`problem.ts`).
 */
export const JSON_LINE_END = "\n";

/**
 * Replaces the request's `c.json` with one that ends the body with a newline. Hono makes its
 * own `c.json` a function per request too, so this costs one more closure and a string
 * concatenation (a rope in V8, flattened once when written): nothing the benchmarks can see
 * (bench/HISTORY.md, "JSON bodies end with a newline").
 */
export function jsonLines(): MiddlewareHandler<AppEnv> {
  return (c, next) => {
    // c.json's arguments, as Hono's own passes them on: a status or a ResponseInit, then headers.
    const respond = c.newResponse as (
      body: string,
      arg?: number | ResponseInit,
      headers?: Record<string, string>,
    ) => Response;
    c.json = ((object: unknown, arg?: number | ResponseInit, headers?: Record<string, string>) =>
      respond(`${JSON.stringify(object)}${JSON_LINE_END}`, arg, {
        "Content-Type": "application/json",
        ...headers,
      })) as typeof c.json;
    return next();
  };
}
