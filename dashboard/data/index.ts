import type { Hono } from "hono";
import type { AppEnv } from "../../api/env.ts";
import type { DashboardParts } from "../parts.ts";
import { actionRoutes } from "./actions.ts";
import { createRegistry } from "./common.ts";
import { formRoutes } from "./forms.ts";
import { recordRoutes } from "./record.ts";
import { tableRoutes } from "./table.ts";

/**
 * Data: every resource of every engine, built from the resource services (`deps.resources`), so a
 * new resource appears here without dashboard code. Tables take the API's list parameters
 * (table.ts); a record page shows its related records, history and actions (record.ts,
 * transitions.ts); forms come from the zod schemas (forms.ts, fields.ts); moves and deletes go
 * through the same services as `/v1` (actions.ts).
 */
export function dataRoutes(app: Hono<AppEnv>, parts: DashboardParts): void {
  const registry = createRegistry(parts.deps.resources);
  tableRoutes(app, parts, registry);
  // `/data/<resource>/new` before `/data/<resource>/<id>`, which would take "new" for an id.
  formRoutes(app, parts, registry);
  actionRoutes(app, parts, registry);
  recordRoutes(app, parts, registry);
}
