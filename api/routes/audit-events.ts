import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import {
  ACTOR_TYPES,
  ActorSchema,
  AUDIT_EVENT_TYPES,
  EventSchema,
  listAuditEvents,
  type ActorType,
} from "../../engines/index.ts";
import type { ApiDeps, AppEnv } from "../env.ts";
import { json, listOf, PagingQuery } from "../openapi.ts";
import { createRouter, declareRoutes, operation, queryParams } from "./declare.ts";
import { typeFilterOf } from "./events.ts";

const AuditListQuery = PagingQuery.extend({
  type: z.string().optional().meta({
    description: "Audit event types, comma-separated, or one family like member.* (GET /v1/event_types)",
  }),
  actor_type: z
    .string()
    .optional()
    .meta({ description: `One value or a comma list of: ${ACTOR_TYPES.join(", ")}` }),
  actor_id: z.string().optional().meta({ description: "The actor's id: usr_…, key_…, oapp_…, or operator" }),
  created_after: z.string().optional().meta({ description: "RFC 3339 timestamp or YYYY-MM-DD" }),
  created_before: z.string().optional().meta({ description: "RFC 3339 timestamp or YYYY-MM-DD" }),
});

/** The audit log pages by creation, newest first; `type` is read by the route, as on `/v1/events`. */
const AUDIT_LIST = {
  filters: {
    actor_type: { kind: "enum", values: ACTOR_TYPES },
    actor_id: { kind: "equals" },
  },
  sorts: { created_at: "created_at" },
  ownParams: ["type"],
} as const;

/**
 * `GET /v1/audit_events`: the organization's management actions (docs/audit-log.md), each an event
 * with its actor, newest first; filters `type` (a comma list of audit kinds, or a family),
 * `actor_type`, `actor_id`, `created_after`, `created_before`. It shows who did what to keys,
 * members, apps, functions and endpoints, so it needs what seeing keys needs (`keys:read`) beside
 * what seeing events needs (`webhooks:read`).
 */
export function auditEventRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const typeFilter = typeFilterOf(AUDIT_EVENT_TYPES.map((type) => ({ type })));
  const app = createRouter();
  const audited = app.openAPIRegistry.register("AuditEvent", EventSchema.extend({ actor: ActorSchema }));
  return declareRoutes(
    {
      tags: ["events"],
      scope: [
        { name: "keys", access: "read" },
        { name: "webhooks", access: "read" },
      ],
    },
    [
      operation({
        method: "get",
        path: "/",
        operationId: "audit_events.list",
        summary: "List the audit log: management actions with their actor, newest first",
        list: AUDIT_LIST,
        query: AuditListQuery,
        ok: { 200: json(listOf(audited), "A page of audit events") },
        handler: async (c) => {
          const filter = typeFilter(queryParams(c).get("type"));
          const { page, perPage, createdAfter, createdBefore, filters } = c.req.valid("query");
          return c.json(
            await listAuditEvents(deps.store, c.var.principal.orgId, {
              page,
              perPage,
              ...filter,
              createdAfter,
              createdBefore,
              actorTypes: filters.actor_type as ActorType[] | undefined,
              actorId: filters.actor_id?.[0],
            }),
          );
        },
      }),
    ],
    app,
  );
}
