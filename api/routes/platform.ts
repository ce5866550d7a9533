import { Hono } from "hono";
import { z } from "zod";
import {
  ApiKeyCreateSchema,
  ApiKeySchema,
  createApiKey,
  getApiKey,
  getOrganization,
  listApiKeys,
  OrganizationSchema,
  revokeApiKey,
} from "../../engines/index.ts";
import type { ApiDeps, AppEnv } from "../env.ts";
import { parseListQuery } from "../list-params.ts";
import { requireScope } from "../middleware/auth.ts";
import { COMMON_ERRORS, IdParam, json, listOf, NOT_FOUND, WRITE_ERRORS, type Registry } from "../openapi.ts";
import { idParam, parseBody } from "../validate.ts";

const MeSchema = z
  .object({
    object: z.literal("me"),
    organization: OrganizationSchema,
    credential: z.object({
      type: z.literal("api_key"),
      id: z.string(),
      kind: z.string(),
      scopes: z.array(z.string()),
    }),
  })
  .meta({ id: "Me" });

/** `GET /v1/me`: who the credential is. Any valid credential may ask. */
export function meRoutes(deps: ApiDeps): Hono<AppEnv> {
  return new Hono<AppEnv>().get("/", async (c) => {
    const principal = c.get("principal");
    const organization = await getOrganization(deps.store, principal.orgId);
    return c.json({
      object: "me" as const,
      organization,
      credential: {
        type: "api_key" as const,
        id: principal.keyId,
        kind: principal.kind,
        scopes: principal.scopes,
      },
    });
  });
}

const CreatedKeySchema = ApiKeySchema.extend({
  secret: z.string().meta({ description: "The whole key. Shown once, at creation; store it now." }),
});

/** `/v1/api_keys`: Settings → API Keys. Needs `keys:read` / `keys:write`. */
export function apiKeyRoutes(deps: ApiDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requireScope("keys"));
  app.get("/", async (c) => {
    const query = parseListQuery(new URL(c.req.url).searchParams, {
      filters: {},
      sorts: { created_at: "created_at" },
    });
    return c.json(await listApiKeys(deps.store, c.get("principal").orgId, query.page, query.perPage));
  });
  app.post("/", async (c) => {
    const input = parseBody(c, ApiKeyCreateSchema);
    const created = await createApiKey(deps.store, c.get("principal").orgId, input);
    c.header("Location", `/v1/api_keys/${created.id}`);
    return c.json(created, 201);
  });
  app.get("/:id", async (c) =>
    c.json(await getApiKey(deps.store, c.get("principal").orgId, idParam(c, "api_key"))),
  );
  const revoke = async (id: string, orgId: string) => {
    const revoked = await revokeApiKey(deps.store, orgId, id, deps.clock);
    deps.keys.invalidate(revoked.id);
    return revoked;
  };
  app.post("/:id/revoke", async (c) => c.json(await revoke(idParam(c, "api_key"), c.get("principal").orgId)));
  app.delete("/:id", async (c) => {
    await revoke(idParam(c, "api_key"), c.get("principal").orgId);
    return c.body(null, 204);
  });
  return app;
}

export function documentPlatform(registry: Registry): void {
  const security = [{ bearerAuth: [] }];
  const tags = ["platform"];
  registry.registerPath({
    method: "get",
    path: "/v1/me",
    summary: "The caller's organization and credential",
    tags,
    security,
    responses: { 200: json(MeSchema, "Who you are"), ...COMMON_ERRORS },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/api_keys",
    summary: "List API keys (secrets redacted)",
    tags,
    security,
    responses: { 200: json(listOf(ApiKeySchema), "A page of keys"), ...COMMON_ERRORS },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/api_keys",
    summary: "Create an API key; the response holds the secret, once",
    tags,
    security,
    request: { body: { content: { "application/json": { schema: ApiKeyCreateSchema } } } },
    responses: { 201: json(CreatedKeySchema, "The key with its secret"), ...WRITE_ERRORS },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/api_keys/{id}",
    summary: "Retrieve an API key",
    tags,
    security,
    request: { params: IdParam },
    responses: { 200: json(ApiKeySchema, "The key"), ...COMMON_ERRORS, ...NOT_FOUND },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/api_keys/{id}/revoke",
    summary: "Revoke an API key at once",
    tags,
    security,
    request: { params: IdParam },
    responses: { 200: json(ApiKeySchema, "The revoked key"), ...WRITE_ERRORS, ...NOT_FOUND },
  });
  registry.registerPath({
    method: "delete",
    path: "/v1/api_keys/{id}",
    summary: "Revoke an API key (same as POST …/revoke)",
    tags,
    security,
    request: { params: IdParam },
    responses: { 204: { description: "Revoked" }, ...WRITE_ERRORS, ...NOT_FOUND },
  });
}
