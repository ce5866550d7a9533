import type { Hono } from "hono";
import type { AppEnv } from "../../env.ts";
import type { DashboardParts } from "../parts.ts";

/** Webhooks (being built). */
export function webhookRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  void app;
  void parts;
}
