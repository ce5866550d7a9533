import { Hono, type Context } from "hono";
import { AppError, safeEqual } from "../../core/index.ts";
import type { ApiDeps, AppEnv } from "../env.ts";

/**
 * Probes for load balancers and orchestrators, and the Prometheus scrape, unless `/metrics` has a
 * listener of its own (TESSERA_METRICS_PORT): then it is not found here.
 */
export function healthRoutes(deps: ApiDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => {
    const ready = await deps.ready().catch(() => false);
    // Redis down does not make a node unready: it serves, counting rate limits alone (rate-limit/).
    const rateLimits = deps.rateLimiter.counting?.() ?? "local";
    return c.json({ status: ready ? "ready" : "not_ready", rate_limits: rateLimits }, ready ? 200 : 503);
  });
  if (!deps.config.metricsListener) {
    app.get("/metrics", async (c) => {
      requireMetricsToken(deps, c.req.header("authorization"));
      return scrape(c, deps);
    });
  }
  return app;
}

/**
 * `/metrics` on its own listener (TESSERA_METRICS_PORT, main.ts), and nothing else there. It is on
 * loopback unless the operator said otherwise, which the config allows only with
 * TESSERA_METRICS_TOKEN: with that token set the scrape presents it (or the operator token), as on
 * the API's port; without it, what can reach the listener may scrape.
 */
export function metricsRoutes(deps: ApiDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/metrics", async (c) => {
    if (deps.config.metricsToken) requireMetricsToken(deps, c.req.header("authorization"));
    return scrape(c, deps);
  });
  return app;
}

async function scrape(c: Context<AppEnv>, deps: ApiDeps): Promise<Response> {
  return c.text(await deps.metrics.render(), 200, { "content-type": "text/plain; version=0.0.4" });
}

/**
 * `/metrics` tells who calls what, how often and how fast, and how many organizations the node
 * serves: not for anyone who can reach the API port. The scrape sends `Authorization: Bearer …`
 * (Prometheus' `authorization.credentials`) with `TESSERA_METRICS_TOKEN`, or the operator token of
 * the embedded data dir; with neither configured the endpoint answers nobody.
 */
function requireMetricsToken(deps: Pick<ApiDeps, "config" | "adminToken">, header: string | undefined): void {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1];
  const accepted = [deps.config.metricsToken, deps.adminToken].filter((t): t is string => Boolean(t));
  if (token && accepted.some((expected) => safeEqual(token, expected))) return;
  const detail =
    accepted.length === 0
      ? "Set TESSERA_METRICS_TOKEN and scrape with Authorization: Bearer <token>"
      : "Scrape with Authorization: Bearer <TESSERA_METRICS_TOKEN>";
  throw new AppError(token ? "invalid_token" : "unauthenticated", detail, {
    headers: {
      "WWW-Authenticate": token
        ? 'Bearer realm="tessera-metrics", error="invalid_token"'
        : 'Bearer realm="tessera-metrics"',
    },
  });
}
