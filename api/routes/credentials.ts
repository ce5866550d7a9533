import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import {
  actorOf,
  ApiKeyCreateSchema,
  ApiKeySchema,
  createApiKey,
  getApiKey,
  getOrganization,
  isOAuthPrincipal,
  listApiKeys,
  OrganizationSchema,
  type KeyPrincipal,
} from "../../engines/index.ts";
import type { ApiDeps, AppEnv } from "../env.ts";
import { json, listOf, PagingQuery } from "../openapi.ts";
import { idParams } from "../path-params.ts";
import { parseBody } from "../validate.ts";
import { declareRoutes, operation } from "./declare.ts";

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

/** `GET /v1/me`: who the credential is. Any valid credential may ask. */
export function meRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  return declareRoutes({ tags: ["platform"] }, [
    operation({
      method: "get",
      path: "/",
      operationId: "me.retrieve",
      summary: "The caller's organization and credential",
      ok: { 200: json(MeSchema, "Who you are") },
      handler: async (c) => {
        const principal = c.var.principal;
        const organization = await getOrganization(deps.store, principal.orgId);
        return c.json({ object: "me" as const, organization, credential: credentialOf(principal) });
      },
    }),
  ]);
}

/** The credential part of `GET /v1/me`: an OAuth token's app, a member's session, or an API key. */
function credentialOf(principal: KeyPrincipal): z.infer<typeof MeSchema>["credential"] {
  if (isOAuthPrincipal(principal)) {
    return {
      type: "oauth",
      app: principal.oauth.app,
      installation_id: principal.oauth.installationId,
      user: principal.oauth.user,
      scopes: principal.scopes,
    };
  }
  if (principal.user) {
    const { id, email, name, role } = principal.user;
    return { type: "user", user: { id, email, name }, role, scopes: principal.scopes };
  }
  return { type: "api_key", id: principal.keyId, kind: principal.kind, scopes: principal.scopes };
}

const CreatedKeySchema = ApiKeySchema.extend({
  secret: z.string().meta({ description: "The whole key. Shown once, at creation; store it now." }),
});

/** Keys list newest first, a page at a time: no filters, no sort but creation. */
const KEY_LIST = { filters: {}, sorts: { created_at: "created_at" } };

/**
 * `/v1/api_keys`: Settings → API Keys. Needs `keys:read` / `keys:write`; a new key holds no more
 * than the caller does (`createApiKey` checks the "may grant" rule: 403 naming what exceeds).
 */
export function apiKeyRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const params = idParams("api_key", "key");
  return declareRoutes({ tags: ["platform"], scope: "keys" }, [
    operation({
      method: "get",
      path: "/",
      operationId: "api_keys.list",
      summary: "List API keys (secrets redacted)",
      list: KEY_LIST,
      query: PagingQuery,
      ok: { 200: json(listOf(ApiKeySchema), "A page of keys") },
      handler: async (c) => {
        const { page, perPage } = c.req.valid("query");
        return c.json(await listApiKeys(deps.store, c.var.principal.orgId, page, perPage));
      },
    }),
    operation({
      method: "post",
      path: "/",
      operationId: "api_keys.create",
      summary: "Create an API key; the response holds the secret, once",
      body: ApiKeyCreateSchema,
      ok: { 201: json(CreatedKeySchema, "The key with its secret") },
      handler: async (c) => {
        const input = parseBody(c, ApiKeyCreateSchema);
        const principal = c.var.principal;
        const created = await createApiKey(deps.store, principal.orgId, input, principal);
        c.header("Location", `/v1/api_keys/${created.id}`);
        return c.json(created, 201);
      },
    }),
    operation({
      method: "get",
      path: "/{id}",
      operationId: "api_keys.retrieve",
      summary: "Retrieve an API key",
      params,
      ok: { 200: json(ApiKeySchema, "The key") },
      handler: async (c) =>
        c.json(await getApiKey(deps.store, c.var.principal.orgId, c.req.valid("param").id)),
    }),
    operation({
      method: "post",
      path: "/{id}/revoke",
      operationId: "api_keys.revoke",
      summary: "Revoke an API key at once",
      params,
      ok: { 200: json(ApiKeySchema, "The revoked key") },
      handler: async (c) => {
        const { principal } = c.var;
        return c.json(await deps.keys.revoke(principal.orgId, c.req.valid("param").id, actorOf(principal)));
      },
    }),
    operation({
      method: "delete",
      path: "/{id}",
      operationId: "api_keys.delete",
      summary: "Revoke an API key (same as POST …/revoke)",
      params,
      ok: { 204: { description: "Revoked" } },
      handler: async (c) => {
        const { principal } = c.var;
        await deps.keys.revoke(principal.orgId, c.req.valid("param").id, actorOf(principal));
        return c.body(null, 204);
      },
    }),
  ]);
}
