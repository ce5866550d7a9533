import type { OpenAPIHono } from "@hono/zod-openapi";
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
import { json, listOf, PagingQuery } from "../openapi.ts";
import { idParams } from "../path-params.ts";
import { parseBody } from "../validate.ts";
import { declareRoutes, operation } from "./declare.ts";

const DeliveryListQuery = PagingQuery.extend({
  status: z
    .string()
    .optional()
    .meta({ description: `One value or a comma list of: ${DELIVERY_STATUSES.join(", ")}` }),
});

/**
 * Deliveries and attempts, per endpoint and per event, and the operations on
 * messages: `POST /v1/webhook_deliveries/{id}/retry` and
 * `POST /v1/webhook_endpoints/{id}/recover {since}`. Mounted at `/v1`; every route
 * needs `webhooks:read` / `webhooks:write`.
 */
export function webhookDeliveryRoutes(deliveries: WebhookDeliveryService): OpenAPIHono<AppEnv> {
  // The schemas carry their component ids (`.meta({ id })`): they become $refs on their own.
  const delivery = WebhookDeliverySchema;
  const endpointParams = idParams("webhook_endpoint", "we");
  const deliveryParams = idParams("webhook_delivery", "whd");

  return declareRoutes({ tags: ["webhooks"], scope: "webhooks" }, [
    operation({
      method: "get",
      path: "/webhook_endpoints/{id}/deliveries",
      operationId: "webhook_endpoints.list_deliveries",
      summary: "List an endpoint's deliveries, newest first",
      params: endpointParams,
      list: DELIVERY_LIST,
      query: DeliveryListQuery,
      ok: { 200: json(listOf(delivery), "A page of deliveries") },
      handler: async (c) => {
        const { id } = c.req.valid("param");
        return c.json(await deliveries.listForEndpoint(c.var.principal.orgId, id, c.req.valid("query")));
      },
    }),
    operation({
      method: "post",
      path: "/webhook_endpoints/{id}/recover",
      operationId: "webhook_endpoints.recover",
      summary: "Re-send every failed delivery of the endpoint since a time",
      description: "Every failed delivery created at or after `since` is due again now. 409 when disabled.",
      params: endpointParams,
      body: WebhookRecoverSchema,
      ok: { 202: json(WebhookRecoverResultSchema, "How many deliveries were re-queued") },
      handler: async (c) => {
        const { id } = c.req.valid("param");
        const { since } = parseBody(c, WebhookRecoverSchema);
        return c.json(await deliveries.recover(c.var.principal.orgId, id, new Date(since)), 202);
      },
    }),
    operation({
      method: "get",
      path: "/events/{id}/deliveries",
      operationId: "events.list_deliveries",
      summary: "List an event's deliveries, one per endpoint it was sent to",
      params: idParams("event", "evt"),
      list: DELIVERY_LIST,
      query: DeliveryListQuery,
      ok: { 200: json(listOf(delivery), "A page of deliveries") },
      handler: async (c) => {
        const { id } = c.req.valid("param");
        return c.json(await deliveries.listForEvent(c.var.principal.orgId, id, c.req.valid("query")));
      },
    }),
    operation({
      method: "get",
      path: "/webhook_deliveries/{id}",
      operationId: "webhook_deliveries.retrieve",
      summary: "Retrieve a delivery",
      params: deliveryParams,
      ok: { 200: json(delivery, "The delivery") },
      handler: async (c) => c.json(await deliveries.get(c.var.principal.orgId, c.req.valid("param").id)),
    }),
    operation({
      method: "get",
      path: "/webhook_deliveries/{id}/attempts",
      operationId: "webhook_deliveries.list_attempts",
      summary: "List a delivery's attempts, latest first",
      params: deliveryParams,
      list: ATTEMPT_LIST,
      query: PagingQuery,
      ok: { 200: json(listOf(WebhookAttemptSchema), "A page of attempts") },
      handler: async (c) => {
        const { id } = c.req.valid("param");
        return c.json(await deliveries.attempts(c.var.principal.orgId, id, c.req.valid("query")));
      },
    }),
    operation({
      method: "post",
      path: "/webhook_deliveries/{id}/retry",
      operationId: "webhook_deliveries.retry",
      summary: "Send a delivery again now, even if it failed",
      description:
        "The delivery is due at once (same webhook-id); if that attempt fails, the endpoint's schedule " +
        "continues from the attempts already made. 409 when the endpoint is disabled.",
      params: deliveryParams,
      ok: { 202: json(delivery, "The delivery, due now") },
      handler: async (c) =>
        c.json(await deliveries.retry(c.var.principal.orgId, c.req.valid("param").id), 202),
    }),
  ]);
}
