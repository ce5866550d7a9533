import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { AppError } from "../../core/index.ts";
import { streamSSE, type SSEStreamingApi } from "hono/streaming";
import {
  eventCursorOf,
  eventJsonSchema,
  EventSchema,
  eventsAfter,
  getEvent,
  latestEventCursor,
  listEvents,
  type EventCursor,
  type EventType,
} from "../../engines/index.ts";
import type { ApiDeps, AppEnv } from "../env.ts";
import { json, listOf, PagingQuery } from "../openapi.ts";
import { idParams } from "../path-params.ts";
import { createRouter, declareRoutes, operation, queryParams } from "./declare.ts";

const EventTypeSchema = z
  .object({
    object: z.literal("event_type"),
    type: z.string(),
    description: z.string(),
    schema: z.record(z.string(), z.unknown()).meta({ description: "JSON Schema of the whole event" }),
  })
  .meta({ id: "EventType" });

const EventStreamQuery = z.object({
  type: z
    .string()
    .optional()
    .meta({ description: "Event types, comma-separated, or one family like invoice.*" }),
  after: z
    .string()
    .optional()
    .meta({ description: "Start after this event (evt_…), as Last-Event-ID does; default: new events only" }),
});

const EventListQuery = PagingQuery.extend({
  type: z
    .string()
    .optional()
    .meta({ description: "Event types, comma-separated, or one family like invoice.*" }),
  created_after: z.string().optional().meta({ description: "RFC 3339 timestamp or YYYY-MM-DD" }),
  created_before: z.string().optional().meta({ description: "RFC 3339 timestamp or YYYY-MM-DD" }),
});

/** `/v1/events` pages by creation, newest first; `type` is read by the route (`typeFilterOf`). */
const EVENT_LIST = { filters: {}, sorts: { created_at: "created_at" }, ownParams: ["type"] };

/**
 * `GET /v1/events` (catch-up: filters `type` — a comma list, `invoice.*` for a
 * family — `created_after`, `created_before`; newest first), `GET /v1/events/{id}`,
 * and the catalog `GET /v1/event_types`. Events belong to the webhooks scope.
 */
export function eventRoutes(deps: ApiDeps, catalog: readonly EventType[]): OpenAPIHono<AppEnv> {
  const typeFilter = typeFilterOf(catalog);
  const app = createRouter();
  const event = app.openAPIRegistry.register("Event", EventSchema.extend({}));

  const operations = [
    operation({
      method: "get",
      path: "/stream",
      operationId: "events.stream",
      summary:
        "Stream new events as Server-Sent Events (id: the event id; resume with Last-Event-ID or after=evt_…)",
      query: EventStreamQuery,
      ok: {
        200: {
          description:
            "An endless text/event-stream: one `event: <type>` with the event JSON as data per event",
          content: { "text/event-stream": { schema: z.string() } },
        },
      },
      // `after` (or Last-Event-ID) may name no event of the organization.
      errors: { 404: true },
      handler: async (c) => {
        const params = queryParams(c);
        for (const name of params.keys()) {
          if (name !== "type" && name !== "after") {
            throw new AppError("invalid_request", `${name}: unknown parameter`, {
              errors: [{ param: name, code: "unknown", message: "unknown parameter" }],
            });
          }
        }
        const filter = typeFilter(params.get("type"));
        const orgId = c.var.principal.orgId;
        const after = params.get("after") ?? c.req.header("last-event-id");
        const cursor = after
          ? await eventCursorOf(deps.store, orgId, after)
          : await latestEventCursor(deps.store, orgId);
        if (!cursor) throw new AppError("not_found", `No such event: '${after!.slice(0, 100)}'`);
        return streamSSE(c, (stream) => streamEvents(deps, stream, { orgId, cursor, filter }));
      },
    }),
    operation({
      method: "get",
      path: "/",
      operationId: "events.list",
      summary: "List events, newest first",
      list: EVENT_LIST,
      query: EventListQuery,
      ok: { 200: json(listOf(event), "A page of events") },
      handler: async (c) => {
        const filter = typeFilter(queryParams(c).get("type"));
        const { page, perPage, createdAfter, createdBefore } = c.req.valid("query");
        return c.json(
          await listEvents(deps.store, c.var.principal.orgId, {
            page,
            perPage,
            ...filter,
            createdAfter,
            createdBefore,
          }),
        );
      },
    }),
    operation({
      method: "get",
      path: "/{id}",
      operationId: "events.retrieve",
      summary: "Retrieve an event",
      params: idParams("event", "evt"),
      ok: { 200: json(event, "The event") },
      handler: async (c) =>
        c.json(await getEvent(deps.store, c.var.principal.orgId, c.req.valid("param").id)),
    }),
  ];
  return declareRoutes({ tags: ["events"], scope: "webhooks" }, operations, app);
}

/**
 * `type`: a comma list of the catalog's event types, or one family (`invoice.*`); a 400 naming
 * what is unknown. The audit log passes the audit kinds as its catalog (routes/audit-events.ts).
 */
export function typeFilterOf(catalog: readonly Pick<EventType, "type">[]) {
  const known = new Set(catalog.map((entry) => entry.type));
  const families = new Set(catalog.map((entry) => `${entry.type.split(".")[0]}.*`));
  return (type: string | null): { types?: string[]; typePrefix?: string } => {
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
    return family ? { typePrefix: family.slice(0, -1) } : types.length > 0 ? { types } : {};
  };
}

/** How often a stream asks the store for new events, and how far back it looks for late commits. */
const STREAM_POLL_MS = 500;
const STREAM_LOOKBACK_MS = 5_000;
const STREAM_HEARTBEAT_MS = 15_000;

/**
 * Sends the organization's new events until the client goes away. Polling the store (not an
 * in-process signal) sees every node's writes; ids sent within the lookback are remembered,
 * so an event that committed late is sent once, and only once.
 */
async function streamEvents(
  deps: ApiDeps,
  stream: SSEStreamingApi,
  from: { orgId: string; cursor: EventCursor; filter: { types?: string[]; typePrefix?: string } },
): Promise<void> {
  let cursor = from.cursor;
  const sent = new Map<string, number>();
  // A comment at once: the headers leave now, so the client knows the stream is open.
  await stream.write(": open\n\n");
  let quietSince = Date.now();
  while (!stream.aborted && !stream.closed) {
    const now = deps.clock.nowMs();
    const since = new Date(now - STREAM_LOOKBACK_MS);
    const rows = await eventsAfter(deps.store, from.orgId, {
      start: from.cursor,
      cursor,
      since,
      ...from.filter,
      limit: 100,
    });
    for (const { event, seq } of rows) {
      if (seq > cursor.seq) cursor = { seq };
      if (sent.has(event.id)) continue;
      sent.set(event.id, now);
      await stream.writeSSE({ id: event.id, event: event.type, data: JSON.stringify(event) });
      quietSince = Date.now();
    }
    for (const [id, at] of sent) if (at < now - 2 * STREAM_LOOKBACK_MS) sent.delete(id);
    if (Date.now() - quietSince > STREAM_HEARTBEAT_MS) {
      // A comment line: proxies and clients see the connection is alive.
      await stream.write(": keep-alive\n\n");
      quietSince = Date.now();
    }
    if (rows.length < 100) await stream.sleep(STREAM_POLL_MS);
  }
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
  // The catalog is the same for everyone: any credential may read it.
  return declareRoutes({ tags: ["events"] }, [
    operation({
      method: "get",
      path: "/",
      operationId: "event_types.list",
      summary: "The catalog of event types, each with its JSON Schema",
      ok: { 200: json(listOf(EventTypeSchema), "Every event type") },
      handler: (c) => c.json(body),
    }),
  ]);
}
