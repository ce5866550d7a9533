import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
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
import {
  BEARER,
  COMMON_ERRORS,
  declareRoute,
  IdParam,
  json,
  jsonRequest,
  listOf,
  NOT_FOUND,
  PagingQuery,
  WRITE_ERRORS,
} from "../openapi.ts";
import { idParam, parseBody } from "../validate.ts";

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
  const app = new OpenAPIHono<AppEnv>();
  // Per route, not `use("*")`: this app is mounted at `/v1` itself.
  const doc = { tags: ["webhooks"], security: BEARER, middleware: requireScope("webhooks") };
  const org = (c: { get(key: "principal"): { orgId: string } }) => c.get("principal").orgId;
  const list = (url: string, definition: typeof DELIVERY_LIST | typeof ATTEMPT_LIST) =>
    parseListQuery(new URL(url).searchParams, definition);
  // The schemas carry their component ids (`.meta({ id })`): they become $refs on their own.
  const delivery = WebhookDeliverySchema;
  const read = { request: { params: IdParam }, responses: { ...COMMON_ERRORS, ...NOT_FOUND } };

  declareRoute(
    app,
    createRoute({
      ...doc,
      method: "get",
      path: "/webhook_endpoints/{id}/deliveries",
      operationId: "webhook_endpoints.list_deliveries",
      summary: "List an endpoint's deliveries, newest first",
      request: { ...read.request, query: DeliveryListQuery },
      responses: { 200: json(listOf(delivery), "A page of deliveries"), ...read.responses },
    }),
    async (c) => {
      const id = idParam(c, "webhook_endpoint");
      return c.json(await deliveries.listForEndpoint(org(c), id, list(c.req.url, DELIVERY_LIST)));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...doc,
      method: "post",
      path: "/webhook_endpoints/{id}/recover",
      operationId: "webhook_endpoints.recover",
      summary: "Re-send every failed delivery of the endpoint since a time",
      description: "Every failed delivery created at or after `since` is due again now. 409 when disabled.",
      request: { params: IdParam, body: jsonRequest(WebhookRecoverSchema) },
      responses: {
        202: json(WebhookRecoverResultSchema, "How many deliveries were re-queued"),
        ...WRITE_ERRORS,
        ...NOT_FOUND,
      },
    }),
    async (c) => {
      const id = idParam(c, "webhook_endpoint");
      const { since } = parseBody(c, WebhookRecoverSchema);
      return c.json(await deliveries.recover(org(c), id, new Date(since)), 202);
    },
  );
  declareRoute(
    app,
    createRoute({
      ...doc,
      method: "get",
      path: "/events/{id}/deliveries",
      operationId: "events.list_deliveries",
      summary: "List an event's deliveries, one per endpoint it was sent to",
      request: { ...read.request, query: DeliveryListQuery },
      responses: { 200: json(listOf(delivery), "A page of deliveries"), ...read.responses },
    }),
    async (c) => {
      const id = idParam(c, "event");
      return c.json(await deliveries.listForEvent(org(c), id, list(c.req.url, DELIVERY_LIST)));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...doc,
      method: "get",
      path: "/webhook_deliveries/{id}",
      operationId: "webhook_deliveries.retrieve",
      summary: "Retrieve a delivery",
      request: read.request,
      responses: { 200: json(delivery, "The delivery"), ...read.responses },
    }),
    async (c) => c.json(await deliveries.get(org(c), idParam(c, "webhook_delivery"))),
  );
  declareRoute(
    app,
    createRoute({
      ...doc,
      method: "get",
      path: "/webhook_deliveries/{id}/attempts",
      operationId: "webhook_deliveries.list_attempts",
      summary: "List a delivery's attempts, latest first",
      request: { ...read.request, query: PagingQuery },
      responses: { 200: json(listOf(WebhookAttemptSchema), "A page of attempts"), ...read.responses },
    }),
    async (c) => {
      const id = idParam(c, "webhook_delivery");
      return c.json(await deliveries.attempts(org(c), id, list(c.req.url, ATTEMPT_LIST)));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...doc,
      method: "post",
      path: "/webhook_deliveries/{id}/retry",
      operationId: "webhook_deliveries.retry",
      summary: "Send a delivery again now, even if it failed",
      description:
        "The delivery is due at once (same webhook-id); if that attempt fails, the endpoint's schedule " +
        "continues from the attempts already made. 409 when the endpoint is disabled.",
      request: { params: IdParam },
      responses: { 202: json(delivery, "The delivery, due now"), ...WRITE_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json(await deliveries.retry(org(c), idParam(c, "webhook_delivery")), 202),
  );
  return app;
}
