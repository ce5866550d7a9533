import type { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import type { DashboardParts } from "./parts.ts";

/** Events explorer (being built). */
export function eventRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  void app;
  void parts;
}
