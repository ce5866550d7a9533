import type { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import type { DashboardParts } from "./parts.ts";

/** Settings → Organization (being built). */
export function organizationRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  void app;
  void parts;
}
