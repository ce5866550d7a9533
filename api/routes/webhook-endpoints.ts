import { Hono } from "hono";
import {
  WEBHOOK_ENDPOINT_LIST,
  WebhookEndpointCreateSchema,
  WebhookEndpointSchema,
  WebhookEndpointUpdateSchema,
  WebhookEndpointWithSecretSchema,
  WebhookSecretSchema,
  WebhookTestDeliverySchema,
  type WebhookEndpointService,
} from "../../webhooks/index.ts";
import type { AppEnv } from "../env.ts";
import { listQuerySchema, parseListQuery } from "../list-params.ts";
import { requireScope } from "../middleware/auth.ts";
import { COMMON_ERRORS, IdParam, json, listOf, NOT_FOUND, WRITE_ERRORS, type Registry } from "../openapi.ts";
import { idParam, parseBody } from "../validate.ts";

const PATH = "/v1/webhook_endpoints";

/**
 * `/v1/webhook_endpoints`: CRUD, the signing secret (shown at creation and by
 * `GET …/{id}/secret`), rotation, and a test event. Needs `webhooks:read` / `webhooks:write`.
 */
export function webhookEndpointRoutes(endpoints: WebhookEndpointService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requireScope("webhooks"));
  const org = (c: { get(key: "principal"): { orgId: string } }) => c.get("principal").orgId;

  app.get("/", async (c) => {
    const query = parseListQuery(new URL(c.req.url).searchParams, WEBHOOK_ENDPOINT_LIST);
    return c.json(await endpoints.list(org(c), query));
  });
  app.post("/", async (c) => {
    const created = await endpoints.create(org(c), parseBody(c, WebhookEndpointCreateSchema));
    c.header("Location", `${PATH}/${created.id}`);
    return c.json(created, 201);
  });
  app.get("/:id", async (c) => c.json(await endpoints.get(org(c), idParam(c, "webhook_endpoint"))));
  app.patch("/:id", async (c) => {
    const id = idParam(c, "webhook_endpoint");
    return c.json(await endpoints.update(org(c), id, parseBody(c, WebhookEndpointUpdateSchema)));
  });
  app.delete("/:id", async (c) => {
    await endpoints.delete(org(c), idParam(c, "webhook_endpoint"));
    return c.body(null, 204);
  });
  app.get("/:id/secret", async (c) => {
    const secret = await endpoints.secret(org(c), idParam(c, "webhook_endpoint"));
    // A secret must not linger in shared caches (RFC 9111 §5.2.2.5).
    c.header("Cache-Control", "no-store");
    return c.json(secret);
  });
  app.post("/:id/rotate_secret", async (c) => {
    const rotated = await endpoints.rotateSecret(org(c), idParam(c, "webhook_endpoint"));
    c.header("Cache-Control", "no-store");
    return c.json(rotated);
  });
  app.post("/:id/test", async (c) => {
    const delivery = await endpoints.sendTest(org(c), idParam(c, "webhook_endpoint"));
    return c.json(delivery, 202);
  });
  return app;
}

export function documentWebhookEndpoints(registry: Registry): void {
  const security = [{ bearerAuth: [] }];
  const tags = ["webhooks"];
  const endpoint = WebhookEndpointSchema;
  registry.registerPath({
    method: "get",
    path: PATH,
    summary: "List webhook endpoints, newest first (secrets never included)",
    tags,
    security,
    request: { query: listQuerySchema(WEBHOOK_ENDPOINT_LIST) },
    responses: { 200: json(listOf(endpoint), "A page of endpoints"), ...COMMON_ERRORS },
  });
  registry.registerPath({
    method: "post",
    path: PATH,
    summary: "Create a webhook endpoint; the response holds its secret",
    tags,
    security,
    request: { body: { content: { "application/json": { schema: WebhookEndpointCreateSchema } } } },
    responses: {
      201: json(WebhookEndpointWithSecretSchema, "The endpoint with its secret"),
      ...WRITE_ERRORS,
    },
  });
  for (const [method, summary, responses] of [
    ["get", "Retrieve a webhook endpoint", { 200: json(endpoint, "The endpoint"), ...COMMON_ERRORS }],
    ["delete", "Delete a webhook endpoint", { 204: { description: "Deleted" }, ...WRITE_ERRORS }],
  ] as const) {
    registry.registerPath({
      method,
      path: `${PATH}/{id}`,
      summary,
      tags,
      security,
      request: { params: IdParam },
      responses: { ...responses, ...NOT_FOUND },
    });
  }
  registry.registerPath({
    method: "patch",
    path: `${PATH}/{id}`,
    summary: "Update a webhook endpoint; enabling it clears disabled_reason and failing_since",
    tags,
    security,
    request: {
      params: IdParam,
      body: { content: { "application/json": { schema: WebhookEndpointUpdateSchema } } },
    },
    responses: { 200: json(endpoint, "The endpoint"), ...WRITE_ERRORS, ...NOT_FOUND },
  });
  registry.registerPath({
    method: "get",
    path: `${PATH}/{id}/secret`,
    summary: "The signing secret (whsec_…), or for v1a the public key (whpk_…) to verify with",
    tags,
    security,
    request: { params: IdParam },
    responses: { 200: json(WebhookSecretSchema, "The secret"), ...COMMON_ERRORS, ...NOT_FOUND },
  });
  registry.registerPath({
    method: "post",
    path: `${PATH}/{id}/rotate_secret`,
    summary: "Make a new secret; the previous one keeps signing too for 24 hours",
    tags,
    security,
    request: { params: IdParam },
    responses: {
      200: json(WebhookEndpointWithSecretSchema, "The endpoint with its new secret"),
      ...WRITE_ERRORS,
      ...NOT_FOUND,
    },
  });
  registry.registerPath({
    method: "post",
    path: `${PATH}/{id}/test`,
    summary: "Send a webhook_endpoint.test event to this endpoint only",
    tags,
    security,
    request: { params: IdParam },
    responses: {
      202: json(WebhookTestDeliverySchema, "The delivery, queued"),
      ...WRITE_ERRORS,
      ...NOT_FOUND,
    },
  });
}
