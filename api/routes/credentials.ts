import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { z } from "zod";
import {
  ApiKeyCreateSchema,
  ApiKeySchema,
  createApiKey,
  getApiKey,
  getOrganization,
  isOAuthPrincipal,
  listApiKeys,
  OrganizationSchema,
} from "../../engines/index.ts";
import type { ApiDeps, AppEnv } from "../env.ts";
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

const MeSchema = z
  .object({
    object: z.literal("me"),
    organization: OrganizationSchema,
    credential: z.union([
      z.object({
        type: z.literal("api_key"),
        id: z.string(),
        kind: z.string(),
        scopes: z.array(z.string()),
      }),
      z.object({
        type: z.literal("oauth"),
        app: z.object({ id: z.string(), name: z.string(), client_id: z.string() }),
        installation_id: z.string().nullable(),
        user: z
          .object({ id: z.string(), email: z.string(), name: z.string(), role: z.string() })
          .nullable()
          .meta({ description: "The member who granted access; null for a client credentials token" }),
        scopes: z.array(z.string()),
      }),
      z.object({
        type: z.literal("user"),
        user: z.object({ id: z.string(), email: z.string(), name: z.string() }),
        role: z.string(),
        scopes: z.array(z.string()),
      }),
    ]),
  })
  .meta({ id: "Me" });

const DOC = { tags: ["platform"], security: BEARER };

/** `GET /v1/me`: who the credential is. Any valid credential may ask. */
export function meRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/",
      operationId: "me.retrieve",
      summary: "The caller's organization and credential",
      responses: { 200: json(MeSchema, "Who you are"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const principal = c.get("principal");
      const organization = await getOrganization(deps.store, principal.orgId);
      return c.json({
        object: "me" as const,
        organization,
        credential: isOAuthPrincipal(principal)
          ? {
              type: "oauth" as const,
              app: principal.oauth.app,
              installation_id: principal.oauth.installationId,
              user: principal.oauth.user,
              scopes: principal.scopes,
            }
          : principal.user
            ? {
                type: "user" as const,
                user: { id: principal.user.id, email: principal.user.email, name: principal.user.name },
                role: principal.user.role,
                scopes: principal.scopes,
              }
            : {
                type: "api_key" as const,
                id: principal.keyId,
                kind: principal.kind,
                scopes: principal.scopes,
              },
      });
    },
  );
  return app;
}

const CreatedKeySchema = ApiKeySchema.extend({
  secret: z.string().meta({ description: "The whole key. Shown once, at creation; store it now." }),
});

/**
 * `/v1/api_keys`: Settings → API Keys. Needs `keys:read` / `keys:write`; a new key holds no more
 * than the caller does (`createApiKey` checks the "may grant" rule: 403 naming what exceeds).
 */
export function apiKeyRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requireScope("keys"));
  const org = (c: Context<AppEnv>) => c.get("principal").orgId;

  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/",
      operationId: "api_keys.list",
      summary: "List API keys (secrets redacted)",
      request: { query: PagingQuery },
      responses: { 200: json(listOf(ApiKeySchema), "A page of keys"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const query = parseListQuery(new URL(c.req.url).searchParams, {
        filters: {},
        sorts: { created_at: "created_at" },
      });
      return c.json(await listApiKeys(deps.store, org(c), query.page, query.perPage));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "post",
      path: "/",
      operationId: "api_keys.create",
      summary: "Create an API key; the response holds the secret, once",
      request: { body: jsonRequest(ApiKeyCreateSchema) },
      responses: { 201: json(CreatedKeySchema, "The key with its secret"), ...WRITE_ERRORS },
    }),
    async (c) => {
      const input = parseBody(c, ApiKeyCreateSchema);
      const created = await createApiKey(deps.store, org(c), input, c.get("principal"));
      c.header("Location", `/v1/api_keys/${created.id}`);
      return c.json(created, 201);
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/{id}",
      operationId: "api_keys.retrieve",
      summary: "Retrieve an API key",
      request: { params: IdParam },
      responses: { 200: json(ApiKeySchema, "The key"), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json(await getApiKey(deps.store, org(c), idParam(c, "api_key"))),
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "post",
      path: "/{id}/revoke",
      operationId: "api_keys.revoke",
      summary: "Revoke an API key at once",
      request: { params: IdParam },
      responses: { 200: json(ApiKeySchema, "The revoked key"), ...WRITE_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json(await deps.keys.revoke(org(c), idParam(c, "api_key"))),
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "delete",
      path: "/{id}",
      operationId: "api_keys.delete",
      summary: "Revoke an API key (same as POST …/revoke)",
      request: { params: IdParam },
      responses: { 204: { description: "Revoked" }, ...WRITE_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      await deps.keys.revoke(org(c), idParam(c, "api_key"));
      return c.body(null, 204);
    },
  );
  return app;
}
