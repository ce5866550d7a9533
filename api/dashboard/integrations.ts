import type { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import type { DashboardParts } from "./parts.ts";

/** Settings → Integrations: OAuth apps and installations (being built). */
export function integrationRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  void app;
  void parts;
}
