import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
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
import type { AppEnv } from "../env.ts";
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

const PATH = "/v1/webhook_endpoints";

const DOC = { tags: ["webhooks"], security: BEARER };

/**
 * `/v1/webhook_endpoints`: CRUD, the signing secret (shown at creation and by
 * `GET …/{id}/secret`), rotation, and a test event. Needs `webhooks:read` / `webhooks:write`; the
 * secret needs `webhooks:write` even to read (`SIGNING_SECRET_ACCESS`).
 */
export function webhookEndpointRoutes(endpoints: WebhookEndpointService): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requireScope("webhooks"));
  const org = (c: { get(key: "principal"): { orgId: string } }) => c.get("principal").orgId;
  const endpoint = WebhookEndpointSchema;

  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/",
      operationId: "webhook_endpoints.list",
      summary: "List webhook endpoints, newest first (secrets never included)",
      request: { query: listQuerySchema(WEBHOOK_ENDPOINT_LIST) },
      responses: { 200: json(listOf(endpoint), "A page of endpoints"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const query = parseListQuery(new URL(c.req.url).searchParams, WEBHOOK_ENDPOINT_LIST);
      return c.json(await endpoints.list(org(c), query));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "post",
      path: "/",
      operationId: "webhook_endpoints.create",
      summary: "Create a webhook endpoint; the response holds its secret",
      request: { body: jsonRequest(WebhookEndpointCreateSchema) },
      responses: {
        201: json(WebhookEndpointWithSecretSchema, "The endpoint with its secret"),
        ...WRITE_ERRORS,
      },
    }),
    async (c) => {
      const created = await endpoints.create(org(c), parseBody(c, WebhookEndpointCreateSchema));
      c.header("Location", `${PATH}/${created.id}`);
      return c.json(created, 201);
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/{id}",
      operationId: "webhook_endpoints.retrieve",
      summary: "Retrieve a webhook endpoint",
      request: { params: IdParam },
      responses: { 200: json(endpoint, "The endpoint"), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json(await endpoints.get(org(c), idParam(c, "webhook_endpoint"))),
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "patch",
      path: "/{id}",
      operationId: "webhook_endpoints.update",
      summary: "Update a webhook endpoint; enabling it clears disabled_reason and failing_since",
      request: { params: IdParam, body: jsonRequest(WebhookEndpointUpdateSchema) },
      responses: { 200: json(endpoint, "The endpoint"), ...WRITE_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const id = idParam(c, "webhook_endpoint");
      return c.json(await endpoints.update(org(c), id, parseBody(c, WebhookEndpointUpdateSchema)));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "delete",
      path: "/{id}",
      operationId: "webhook_endpoints.delete",
      summary: "Delete a webhook endpoint",
      request: { params: IdParam },
      responses: { 204: { description: "Deleted" }, ...WRITE_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      await endpoints.delete(org(c), idParam(c, "webhook_endpoint"));
      return c.body(null, 204);
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/{id}/secret",
      operationId: "webhook_endpoints.retrieve_secret",
      summary:
        "The signing secret (whsec_…), or for v1a the public key (whpk_…) to verify with; needs webhooks:write",
      middleware: requireScope("webhooks", SIGNING_SECRET_ACCESS),
      request: { params: IdParam },
      responses: { 200: json(WebhookSecretSchema, "The secret"), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const secret = await endpoints.secret(org(c), idParam(c, "webhook_endpoint"));
      return c.json(secret);
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "post",
      path: "/{id}/rotate_secret",
      operationId: "webhook_endpoints.rotate_secret",
      summary: "Make a new secret; the previous one keeps signing too for 24 hours",
      request: { params: IdParam },
      responses: {
        200: json(WebhookEndpointWithSecretSchema, "The endpoint with its new secret"),
        ...WRITE_ERRORS,
        ...NOT_FOUND,
      },
    }),
    async (c) => {
      const rotated = await endpoints.rotateSecret(org(c), idParam(c, "webhook_endpoint"));
      return c.json(rotated);
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "post",
      path: "/{id}/test",
      operationId: "webhook_endpoints.test",
      summary: "Send a webhook_endpoint.test event to this endpoint only",
      request: { params: IdParam },
      responses: {
        202: json(WebhookTestDeliverySchema, "The delivery, queued"),
        ...WRITE_ERRORS,
        ...NOT_FOUND,
      },
    }),
    async (c) => {
      const delivery = await endpoints.sendTest(org(c), idParam(c, "webhook_endpoint"));
      return c.json(delivery, 202);
    },
  );
  return app;
}
