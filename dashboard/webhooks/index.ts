import type { Hono } from "hono";
import type { AppEnv } from "../../api/env.ts";
import type { DashboardParts } from "../parts.ts";
import { deliveryRoutes } from "./deliveries.ts";
import { endpointRoutes } from "./endpoints.ts";
import { secretRoutes } from "./secret.ts";

/**
 * Webhooks (`/webhooks`): endpoints (list, create with an event-type picker, edit, disable, delete),
 * the signing secret (reveal, rotate), test events, deliveries with each attempt, retry and recover.
 * Every page calls the services the `/v1` routes call; no rule or query of theirs is repeated here.
 */
export function webhookRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  endpointRoutes(app, parts);
  secretRoutes(app, parts);
  deliveryRoutes(app, parts);
}
