import type { OpenAPIHono } from "@hono/zod-openapi";
import {
  WEBHOOK_ENDPOINT_LIST,
  WebhookEndpointCreateSchema,
  WebhookEndpointSchema,
  WebhookEndpointUpdateSchema,
  WebhookEndpointWithSecretSchema,
  WebhookSecretSchema,
  SIGNING_SECRET_ACCESS,
  WebhookTestDeliverySchema,
  type WebhookEndpointService,
} from "../../webhooks/index.ts";
import { actorOf } from "../../engines/index.ts";
import type { AppEnv } from "../env.ts";
import { json, listOf } from "../openapi.ts";
import { idParams } from "../path-params.ts";
import { parseBody } from "../validate.ts";
import { declareRoutes, operation } from "./declare.ts";

const PATH = "/v1/webhook_endpoints";

/**
 * `/v1/webhook_endpoints`: CRUD, the signing secret (shown at creation and by
 * `GET …/{id}/secret`), rotation, and a test event. Needs `webhooks:read` / `webhooks:write`; the
 * secret needs `webhooks:write` even to read (`SIGNING_SECRET_ACCESS`).
 */
export function webhookEndpointRoutes(endpoints: WebhookEndpointService): OpenAPIHono<AppEnv> {
  const endpoint = WebhookEndpointSchema;
  const params = idParams("webhook_endpoint", "we");

  return declareRoutes({ tags: ["webhooks"], scope: "webhooks" }, [
    operation({
      method: "get",
      path: "/",
      operationId: "webhook_endpoints.list",
      summary: "List webhook endpoints, newest first (secrets never included)",
      list: WEBHOOK_ENDPOINT_LIST,
      ok: { 200: json(listOf(endpoint), "A page of endpoints") },
      handler: async (c) => c.json(await endpoints.list(c.var.principal.orgId, c.req.valid("query"))),
    }),
    operation({
      method: "post",
      path: "/",
      operationId: "webhook_endpoints.create",
      summary: "Create a webhook endpoint; the response holds its secret",
      body: WebhookEndpointCreateSchema,
      ok: { 201: json(WebhookEndpointWithSecretSchema, "The endpoint with its secret") },
      handler: async (c) => {
        const input = parseBody(c, WebhookEndpointCreateSchema);
        const { principal } = c.var;
        const created = await endpoints.create(principal.orgId, input, actorOf(principal));
        c.header("Location", `${PATH}/${created.id}`);
        return c.json(created, 201);
      },
    }),
    operation({
      method: "get",
      path: "/{id}",
      operationId: "webhook_endpoints.retrieve",
      summary: "Retrieve a webhook endpoint",
      params,
      ok: { 200: json(endpoint, "The endpoint") },
      handler: async (c) => c.json(await endpoints.get(c.var.principal.orgId, c.req.valid("param").id)),
    }),
    operation({
      method: "patch",
      path: "/{id}",
      operationId: "webhook_endpoints.update",
      summary: "Update a webhook endpoint; enabling it clears disabled_reason and failing_since",
      params,
      body: WebhookEndpointUpdateSchema,
      ok: { 200: json(endpoint, "The endpoint") },
      handler: async (c) => {
        const { id } = c.req.valid("param");
        const patch = parseBody(c, WebhookEndpointUpdateSchema);
        return c.json(await endpoints.update(c.var.principal.orgId, id, patch, actorOf(c.var.principal)));
      },
    }),
    operation({
      method: "delete",
      path: "/{id}",
      operationId: "webhook_endpoints.delete",
      summary: "Delete a webhook endpoint",
      params,
      ok: { 204: { description: "Deleted" } },
      handler: async (c) => {
        const { principal } = c.var;
        await endpoints.delete(principal.orgId, c.req.valid("param").id, actorOf(principal));
        return c.body(null, 204);
      },
    }),
    operation({
      method: "get",
      path: "/{id}/secret",
      operationId: "webhook_endpoints.retrieve_secret",
      summary:
        "The signing secret (whsec_…), or for v1a the public key (whpk_…) to verify with; needs webhooks:write",
      // Whoever holds the secret can sign what the organization's receivers accept: a write.
      scope: { name: "webhooks", access: SIGNING_SECRET_ACCESS },
      params,
      ok: { 200: json(WebhookSecretSchema, "The secret") },
      handler: async (c) => c.json(await endpoints.secret(c.var.principal.orgId, c.req.valid("param").id)),
    }),
    operation({
      method: "post",
      path: "/{id}/rotate_secret",
      operationId: "webhook_endpoints.rotate_secret",
      summary: "Make a new secret; the previous one keeps signing too for 24 hours",
      params,
      ok: { 200: json(WebhookEndpointWithSecretSchema, "The endpoint with its new secret") },
      handler: async (c) => {
        const { principal } = c.var;
        return c.json(
          await endpoints.rotateSecret(principal.orgId, c.req.valid("param").id, actorOf(principal)),
        );
      },
    }),
    operation({
      method: "post",
      path: "/{id}/test",
      operationId: "webhook_endpoints.test",
      summary: "Send a webhook_endpoint.test event to this endpoint only",
      params,
      ok: { 202: json(WebhookTestDeliverySchema, "The delivery, queued") },
      handler: async (c) =>
        c.json(await endpoints.sendTest(c.var.principal.orgId, c.req.valid("param").id), 202),
    }),
  ]);
}
