import type { Context } from "hono";
import { AppError } from "../core/index.ts";

interface RouteInfo {
  method: string;
  path: string;
}

/**
 * For a request that matched no route: the methods other routes accept on the
 * same path. Non-empty means 405 with `Allow` (RFC 9110 §15.5.6), not 404.
 */
export function createAllowedMethods(routes: () => readonly RouteInfo[]) {
  let table: Array<{ pattern: RegExp; methods: Set<string> }> | undefined;
  const build = () => {
    const byPath = new Map<string, Set<string>>();
    for (const route of routes()) {
      if (route.method === "ALL" || route.path.includes("*")) continue;
      const methods = byPath.get(route.path) ?? new Set<string>();
      methods.add(route.method);
      if (route.method === "GET") methods.add("HEAD");
      byPath.set(route.path, methods);
    }
    return [...byPath].map(([path, methods]) => ({
      // `:key{.+}` carries its own pattern (it may span segments); a bare `:id` is one segment.
      pattern: new RegExp(
        `^${path
          .replace(/:\w+\{([^}]+)\}/g, "($1)")
          .replace(/:[^/]+/g, "[^/]+")
          .replace(/\/$/, "")}/?$`,
      ),
      methods,
    }));
  };
  return (path: string): string[] => {
    table ??= build();
    const allowed = new Set<string>();
    for (const entry of table) if (entry.pattern.test(path)) entry.methods.forEach((m) => allowed.add(m));
    return [...allowed].sort();
  };
}

export function notFoundOrNotAllowed(c: Context, allowed: string[]): AppError {
  if (allowed.length > 0) {
    return new AppError("method_not_allowed", `${c.req.method} is not allowed on ${c.req.path}`, {
      headers: { Allow: allowed.join(", ") },
    });
  }
  return new AppError("not_found", `No route for ${c.req.method} ${c.req.path}`);
}
