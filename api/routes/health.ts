import { Hono } from "hono";
import type { ApiDeps, AppEnv } from "../env.ts";

/** Probes for load balancers and orchestrators, and the Prometheus scrape. */
export function healthRoutes(deps: ApiDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => {
    const ready = await deps.ready().catch(() => false);
    // Redis down does not make a node unready: it serves, counting rate limits alone (rate-limit/).
    const rateLimits = deps.rateLimiter.counting?.() ?? "local";
    return c.json({ status: ready ? "ready" : "not_ready", rate_limits: rateLimits }, ready ? 200 : 503);
  });
  app.get("/metrics", async (c) =>
    c.text(await deps.metrics.render(), 200, { "content-type": "text/plain; version=0.0.4" }),
  );
  return app;
}
