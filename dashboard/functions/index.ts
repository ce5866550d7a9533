import type { Hono } from "hono";
import type { AppEnv } from "../../api/env.ts";
import type { DashboardParts } from "../parts.ts";
import { deployRoutes } from "./deploy.ts";
import { listRoutes } from "./list.ts";
import { overviewRoutes } from "./overview.ts";
import { runRoutes } from "./runs.ts";
import { secretRoutes } from "./secrets.ts";
import { versionRoutes } from "./versions.ts";

/**
 * Functions: the list, deploy (a folder, a zip or the editor), and each function's overview (the
 * request builder, recent logs with a live tail), versions with rollback, secrets (names only) and
 * trigger runs with retry. Every action calls the service its /v1 route calls, under the scope /v1
 * asks for it; client/functions.js adds the editor's Tab key, confirmations and the live tail.
 */
export function functionRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  listRoutes(app, parts);
  // Before `/functions/:name`, which `/functions/new` would otherwise match.
  deployRoutes(app, parts);
  overviewRoutes(app, parts);
  versionRoutes(app, parts);
  secretRoutes(app, parts);
  runRoutes(app, parts);
}
