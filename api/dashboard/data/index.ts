import type { Hono } from "hono";
import type { AppEnv } from "../../env.ts";
import type { DashboardParts } from "../parts.ts";

/** Data: every resource of every engine (being built). */
export function dataRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  void app;
  void parts;
}
