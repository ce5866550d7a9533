import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { AppError } from "../../core/index.ts";
import { eventJsonSchema, EventSchema, getEvent, listEvents, type EventType } from "../../engines/index.ts";
import type { ApiDeps, AppEnv } from "../env.ts";
import { parseListQuery } from "../list-params.ts";
import { requireScope } from "../middleware/auth.ts";
import {
  BEARER,
  COMMON_ERRORS,
  declareRoute,
  IdParam,
  json,
  listOf,
  NOT_FOUND,
  PagingQuery,
} from "../openapi.ts";
import { idParam } from "../validate.ts";

const EventTypeSchema = z
  .object({
    object: z.literal("event_type"),
    type: z.string(),
    description: z.string(),
    schema: z.record(z.string(), z.unknown()).meta({ description: "JSON Schema of the whole event" }),
  })
  .meta({ id: "EventType" });

const DOC = { tags: ["events"], security: BEARER };

const EventListQuery = PagingQuery.extend({
  type: z
    .string()
    .optional()
    .meta({ description: "Event types, comma-separated, or one family like invoice.*" }),
  created_after: z.string().optional().meta({ description: "RFC 3339 timestamp or YYYY-MM-DD" }),
  created_before: z.string().optional().meta({ description: "RFC 3339 timestamp or YYYY-MM-DD" }),
});

/**
 * `GET /v1/events` (catch-up: filters `type` — a comma list, `invoice.*` for a
 * family — `created_after`, `created_before`; newest first), `GET /v1/events/{id}`,
 * and the catalog `GET /v1/event_types`. Events belong to the webhooks scope.
 */
export function eventRoutes(deps: ApiDeps, catalog: readonly EventType[]): OpenAPIHono<AppEnv> {
  const known = new Set(catalog.map((entry) => entry.type));
  const families = new Set(catalog.map((entry) => `${entry.type.split(".")[0]}.*`));
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requireScope("webhooks"));
  const event = app.openAPIRegistry.register("Event", EventSchema.extend({}));
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/",
      operationId: "events.list",
      summary: "List events, newest first",
      request: { query: EventListQuery },
      responses: { 200: json(listOf(event), "A page of events"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const params = new URL(c.req.url).searchParams;
      const type = params.get("type");
      params.delete("type");
      const query = parseListQuery(params, { filters: {}, sorts: { created_at: "created_at" } });
      const types = type?.split(",").map((value) => value.trim()) ?? [];
      const unknown = types.find((value) => !known.has(value) && !families.has(value));
      if (unknown !== undefined) {
        throw new AppError(
          "invalid_request",
          `type: unknown event type '${unknown}'; see GET /v1/event_types`,
          {
            errors: [{ param: "type", code: "invalid", message: `unknown event type '${unknown}'` }],
          },
        );
      }
      const family = types.find((value) => value.endsWith(".*"));
      if (family && types.length > 1) {
        throw new AppError(
          "invalid_request",
          "type: a family (invoice.*) cannot be combined with other types",
          {
            errors: [{ param: "type", code: "invalid", message: "use one family or a list of types" }],
          },
        );
      }
      return c.json(
        await listEvents(deps.store, c.get("principal").orgId, {
          page: query.page,
          perPage: query.perPage,
          types: family ? undefined : types,
          typePrefix: family?.slice(0, -1),
          createdAfter: query.createdAfter,
          createdBefore: query.createdBefore,
        }),
      );
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/{id}",
      operationId: "events.retrieve",
      summary: "Retrieve an event",
      request: { params: IdParam },
      responses: { 200: json(event, "The event"), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json(await getEvent(deps.store, c.get("principal").orgId, idParam(c, "event"))),
  );
  return app;
}

export function eventTypeRoutes(catalog: readonly EventType[]): OpenAPIHono<AppEnv> {
  // JSON Schemas are computed once: the catalog is fixed for the process.
  const body = {
    data: catalog.map((entry) => ({
      object: "event_type" as const,
      type: entry.type,
      description: entry.description,
      schema: eventJsonSchema(entry),
    })),
    meta: { total: catalog.length, page: 1, per_page: catalog.length },
  };
  const app = new OpenAPIHono<AppEnv>();
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/",
      operationId: "event_types.list",
      summary: "The catalog of event types, each with its JSON Schema",
      responses: { 200: json(listOf(EventTypeSchema), "Every event type"), ...COMMON_ERRORS },
    }),
    (c) => c.json(body),
  );
  return app;
}
