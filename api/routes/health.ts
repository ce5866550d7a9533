import { Hono } from "hono";
import type { ApiDeps, AppEnv } from "../env.ts";

/** Probes for load balancers and orchestrators, and the Prometheus scrape. */
export function healthRoutes(deps: ApiDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => {
    const ready = await deps.ready().catch(() => false);
    return c.json({ status: ready ? "ready" : "not_ready" }, ready ? 200 : 503);
  });
  app.get("/metrics", async (c) =>
    c.text(await deps.metrics.render(), 200, { "content-type": "text/plain; version=0.0.4" }),
  );
  return app;
}
