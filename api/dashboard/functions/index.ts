import type { Hono } from "hono";
import type { AppEnv } from "../../env.ts";
import type { DashboardParts } from "../parts.ts";

/** Functions (being built). */
export function functionRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  void app;
  void parts;
}
