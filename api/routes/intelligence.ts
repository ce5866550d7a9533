import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
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
import { listQuerySchema, parseListQuery } from "../list-params.ts";
import { requireScope } from "../middleware/auth.ts";
import {
  BEARER,
  COMMON_ERRORS,
  declareRoute,
  IdParam,
  json,
  jsonRequest,
  listOf,
  NOT_FOUND,
  WRITE_ERRORS,
} from "../openapi.ts";
import { idParam, parseBody } from "../validate.ts";

const PATH = "/v1/intelligence/snapshots";

/** `sort=created_at|-created_at` (and `computed_at`, the same instant); no resource filters. */
const SNAPSHOT_LIST = {
  filters: {},
  sorts: { created_at: "computed_at", computed_at: "computed_at" },
};

/** A refresh takes no input; an empty object (or no body) is the only valid one. */
const SnapshotRefreshSchema = z.object({}).strict();

const DOC = { tags: ["intelligence"], security: BEARER };

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
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requireScope("finance"), requireScope("growth"), requireScope("talent"));
  const org = (c: { get(key: "principal"): { orgId: string } }) => c.get("principal").orgId;

  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/",
      operationId: "intelligence_snapshots.list",
      summary: "List the organization's snapshots, newest first",
      description: "Needs finance:read, growth:read and talent:read.",
      request: { query: listQuerySchema(SNAPSHOT_LIST) },
      responses: { 200: json(listOf(SnapshotSchema), "A page of snapshots"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const query = parseListQuery(new URL(c.req.url).searchParams, SNAPSHOT_LIST);
      return c.json(await listSnapshots(deps.store, org(c), query));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "post",
      path: "/",
      operationId: "intelligence_snapshots.create",
      summary: "Compute a snapshot now",
      description: "Needs finance:write, growth:write and talent:write. The body is empty or {}.",
      request: { body: jsonRequest(SnapshotRefreshSchema) },
      responses: { 201: json(SnapshotSchema, "The new snapshot"), ...WRITE_ERRORS },
    }),
    async (c) => {
      parseBody(c, SnapshotRefreshSchema);
      const snapshot = await refreshSnapshot(deps.store, deps.clock, org(c));
      onRefreshed?.(org(c));
      c.header("Location", `${PATH}/${snapshot.id}`);
      return c.json(snapshot, 201);
    },
  );
  // Before `/{id}`, which would otherwise take "latest" as an id.
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/latest",
      operationId: "intelligence_snapshots.retrieve_latest",
      summary: "The newest snapshot; 404 before the first one",
      responses: { 200: json(SnapshotSchema, "The newest snapshot"), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const snapshot = await latestSnapshot(deps.store, org(c));
      if (!snapshot) {
        throw new AppError(
          "not_found",
          "No intelligence snapshot yet: the scheduler makes one every hour, or POST /v1/intelligence/snapshots makes one now",
        );
      }
      return c.json(snapshot);
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/{id}",
      operationId: "intelligence_snapshots.retrieve",
      summary: "Retrieve a snapshot",
      request: { params: IdParam },
      responses: { 200: json(SnapshotSchema, "The snapshot"), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json(await getSnapshot(deps.store, org(c), idParam(c, "intelligence_snapshot"))),
  );
  return app;
}
