import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import {
  getSnapshot,
  latestSnapshot,
  listSnapshots,
  refreshSnapshot,
  SnapshotSchema,
} from "../../engines/index.ts";
import { AppError } from "../../core/index.ts";
import type { ApiDeps, AppEnv } from "../env.ts";
import { json, listOf } from "../openapi.ts";
import { idParams } from "../path-params.ts";
import { parseBody } from "../validate.ts";
import { declareRoutes, operation } from "./declare.ts";

const PATH = "/v1/intelligence/snapshots";

/** `sort=created_at|-created_at` (and `computed_at`, the same instant); no resource filters. */
const SNAPSHOT_LIST = {
  filters: {},
  sorts: { created_at: "computed_at", computed_at: "computed_at" },
};

/** A refresh takes no input; an empty object (or no body) is the only valid one. */
const SnapshotRefreshSchema = z.object({}).strict();

/**
 * `/v1/intelligence/snapshots`: history (newest first), `latest`, one by id, and
 * `POST` to refresh now. A snapshot holds figures of all three engines, so reading
 * needs `finance:read`, `growth:read` and `talent:read` (a `read_only` or
 * `full_access` key has them), and a refresh — a write — needs the three `:write`.
 */
export function intelligenceRoutes(
  deps: ApiDeps,
  onRefreshed?: (orgId: string) => void,
): OpenAPIHono<AppEnv> {
  const scope = ["finance", "growth", "talent"] as const;
  return declareRoutes({ tags: ["intelligence"], scope }, [
    operation({
      method: "get",
      path: "/",
      operationId: "intelligence_snapshots.list",
      summary: "List the organization's snapshots, newest first",
      description: "Needs finance:read, growth:read and talent:read.",
      list: SNAPSHOT_LIST,
      ok: { 200: json(listOf(SnapshotSchema), "A page of snapshots") },
      handler: async (c) =>
        c.json(await listSnapshots(deps.store, c.var.principal.orgId, c.req.valid("query"))),
    }),
    operation({
      method: "post",
      path: "/",
      operationId: "intelligence_snapshots.create",
      summary: "Compute a snapshot now",
      description: "Needs finance:write, growth:write and talent:write. The body is empty or {}.",
      body: SnapshotRefreshSchema,
      ok: { 201: json(SnapshotSchema, "The new snapshot") },
      handler: async (c) => {
        parseBody(c, SnapshotRefreshSchema);
        const orgId = c.var.principal.orgId;
        const snapshot = await refreshSnapshot(deps.store, deps.clock, orgId);
        onRefreshed?.(orgId);
        c.header("Location", `${PATH}/${snapshot.id}`);
        return c.json(snapshot, 201);
      },
    }),
    // Before `/{id}`, which would otherwise take "latest" as an id.
    operation({
      method: "get",
      path: "/latest",
      operationId: "intelligence_snapshots.retrieve_latest",
      summary: "The newest snapshot; 404 before the first one",
      ok: { 200: json(SnapshotSchema, "The newest snapshot") },
      // There is none before the first.
      errors: { 404: true },
      handler: async (c) => {
        const snapshot = await latestSnapshot(deps.store, c.var.principal.orgId);
        if (!snapshot) {
          throw new AppError(
            "not_found",
            "No intelligence snapshot yet: the scheduler makes one every hour, or POST /v1/intelligence/snapshots makes one now",
          );
        }
        return c.json(snapshot);
      },
    }),
    operation({
      method: "get",
      path: "/{id}",
      operationId: "intelligence_snapshots.retrieve",
      summary: "Retrieve a snapshot",
      params: idParams("intelligence_snapshot", "snap"),
      ok: { 200: json(SnapshotSchema, "The snapshot") },
      handler: async (c) =>
        c.json(await getSnapshot(deps.store, c.var.principal.orgId, c.req.valid("param").id)),
    }),
  ]);
}
