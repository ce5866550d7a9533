import { Hono } from "hono";
import { z } from "zod";
import {
  ATTEMPT_LIST,
  DELIVERY_LIST,
  DELIVERY_STATUSES,
  WebhookAttemptSchema,
  WebhookDeliverySchema,
  WebhookRecoverResultSchema,
  WebhookRecoverSchema,
  type WebhookDeliveryService,
} from "../../webhooks/index.ts";
import type { AppEnv } from "../env.ts";
import { parseListQuery } from "../list-params.ts";
import { requireScope } from "../middleware/auth.ts";
import { COMMON_ERRORS, IdParam, json, listOf, NOT_FOUND, WRITE_ERRORS, type Registry } from "../openapi.ts";
import { idParam, parseBody } from "../validate.ts";

/**
 * Deliveries and attempts, per endpoint and per event, and the operations on
 * messages: `POST /v1/webhook_deliveries/{id}/retry` and
 * `POST /v1/webhook_endpoints/{id}/recover {since}`. Mounted at `/v1`; every route
 * needs `webhooks:read` / `webhooks:write`.
 */
export function webhookDeliveryRoutes(deliveries: WebhookDeliveryService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const scope = requireScope("webhooks");
  const org = (c: { get(key: "principal"): { orgId: string } }) => c.get("principal").orgId;
  const list = (url: string, definition: typeof DELIVERY_LIST | typeof ATTEMPT_LIST) =>
    parseListQuery(new URL(url).searchParams, definition);

  app.get("/webhook_endpoints/:id/deliveries", scope, async (c) => {
    const id = idParam(c, "webhook_endpoint");
    return c.json(await deliveries.listForEndpoint(org(c), id, list(c.req.url, DELIVERY_LIST)));
  });
  app.post("/webhook_endpoints/:id/recover", scope, async (c) => {
    const id = idParam(c, "webhook_endpoint");
    const { since } = parseBody(c, WebhookRecoverSchema);
    return c.json(await deliveries.recover(org(c), id, new Date(since)), 202);
  });
  app.get("/events/:id/deliveries", scope, async (c) => {
    const id = idParam(c, "event");
    return c.json(await deliveries.listForEvent(org(c), id, list(c.req.url, DELIVERY_LIST)));
  });
  app.get("/webhook_deliveries/:id", scope, async (c) =>
    c.json(await deliveries.get(org(c), idParam(c, "webhook_delivery"))),
  );
  app.get("/webhook_deliveries/:id/attempts", scope, async (c) => {
    const id = idParam(c, "webhook_delivery");
    return c.json(await deliveries.attempts(org(c), id, list(c.req.url, ATTEMPT_LIST)));
  });
  app.post("/webhook_deliveries/:id/retry", scope, async (c) =>
    c.json(await deliveries.retry(org(c), idParam(c, "webhook_delivery")), 202),
  );
  return app;
}

const PagingQuery = z.object({
  page: z.string().optional().meta({ description: "Page number, from 1" }),
  per_page: z.string().optional().meta({ description: "Items per page, 1-100 (default 25)" }),
});
const DeliveryListQuery = PagingQuery.extend({
  status: z
    .string()
    .optional()
    .meta({ description: `One value or a comma list of: ${DELIVERY_STATUSES.join(", ")}` }),
});

export function documentWebhookDeliveries(registry: Registry): void {
  const security = [{ bearerAuth: [] }];
  const tags = ["webhooks"];
  // The schemas carry their component ids (`.meta({ id })`): they become $refs on their own.
  const delivery = WebhookDeliverySchema;
  const attempt = WebhookAttemptSchema;
  const read = (path: string, summary: string, query: z.ZodObject, body: z.ZodType, what: string) =>
    registry.registerPath({
      method: "get",
      path,
      summary,
      tags,
      security,
      request: { params: IdParam, query },
      responses: { 200: json(body, what), ...COMMON_ERRORS, ...NOT_FOUND },
    });
  read(
    "/v1/webhook_endpoints/{id}/deliveries",
    "List an endpoint's deliveries, newest first",
    DeliveryListQuery,
    listOf(delivery),
    "A page of deliveries",
  );
  read(
    "/v1/events/{id}/deliveries",
    "List an event's deliveries, one per endpoint it was sent to",
    DeliveryListQuery,
    listOf(delivery),
    "A page of deliveries",
  );
  read("/v1/webhook_deliveries/{id}", "Retrieve a delivery", z.object({}), delivery, "The delivery");
  read(
    "/v1/webhook_deliveries/{id}/attempts",
    "List a delivery's attempts, latest first",
    PagingQuery,
    listOf(attempt),
    "A page of attempts",
  );
  registry.registerPath({
    method: "post",
    path: "/v1/webhook_deliveries/{id}/retry",
    summary: "Send a delivery again now, even if it failed",
    description:
      "The delivery is due at once (same webhook-id); if that attempt fails, the endpoint's schedule " +
      "continues from the attempts already made. 409 when the endpoint is disabled.",
    tags,
    security,
    request: { params: IdParam },
    responses: { 202: json(delivery, "The delivery, due now"), ...WRITE_ERRORS, ...NOT_FOUND },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/webhook_endpoints/{id}/recover",
    summary: "Re-send every failed delivery of the endpoint since a time",
    description: "Every failed delivery created at or after `since` is due again now. 409 when disabled.",
    tags,
    security,
    request: {
      params: IdParam,
      body: { content: { "application/json": { schema: WebhookRecoverSchema } } },
    },
    responses: {
      202: json(WebhookRecoverResultSchema, "How many deliveries were re-queued"),
      ...WRITE_ERRORS,
      ...NOT_FOUND,
    },
  });
}
