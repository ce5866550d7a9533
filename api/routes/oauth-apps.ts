import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import {
  actorOf,
  createOAuthApp,
  deleteOAuthApp,
  disconnectInstallation,
  getOAuthApp,
  listInstallations,
  listOAuthApps,
  OAuthAppCreateSchema,
  OAuthAppSchema,
  OAuthAppUpdateSchema,
  OAuthInstallationSchema,
  rotateOAuthAppSecret,
  updateOAuthApp,
} from "../../engines/index.ts";
import type { ApiDeps, AppEnv } from "../env.ts";
import { json, listOf, PagingQuery } from "../openapi.ts";
import { idParams } from "../path-params.ts";
import { parseBody } from "../validate.ts";
import { declareRoutes, operation } from "./declare.ts";

const WithSecretSchema = OAuthAppSchema.extend({
  client_secret: z
    .string()
    .nullable()
    .meta({ description: "Shown once, now (null for a public app): store it in the app's backend." }),
});

/** Apps list newest first, a page at a time: no filters, no sort but creation. */
const APP_LIST = { filters: {}, sorts: { created_at: "created_at" } };

/**
 * `/v1/oauth_apps`: the organization's OAuth apps (Settings → Integrations). An app's client is a
 * credential that can obtain tokens, so managing apps needs the same scopes as API keys:
 * `keys:read` to list, `keys:write` to register, change, rotate and delete. Registering, changing
 * and rotating also pass the "may grant" rule on the app's scopes (an OAuth token grants nothing).
 */
export function oauthAppRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const { store, clock } = deps;
  const params = idParams("oauth_app", "oapp");
  return declareRoutes({ tags: ["platform"], scope: "keys" }, [
    operation({
      method: "get",
      path: "/",
      operationId: "oauth_apps.list",
      summary: "List the organization's OAuth apps (secrets redacted)",
      list: APP_LIST,
      query: PagingQuery,
      ok: { 200: json(listOf(OAuthAppSchema), "A page of apps") },
      handler: async (c) => {
        const { page, perPage } = c.req.valid("query");
        return c.json(await listOAuthApps(store, c.var.principal.orgId, page, perPage));
      },
    }),
    operation({
      method: "post",
      path: "/",
      operationId: "oauth_apps.create",
      summary: "Register an OAuth app; the response holds its client secret, once",
      body: OAuthAppCreateSchema,
      ok: { 201: json(WithSecretSchema, "The app with its client secret") },
      handler: async (c) => {
        const input = parseBody(c, OAuthAppCreateSchema);
        const principal = c.var.principal;
        const created = await createOAuthApp(
          store,
          clock,
          principal.orgId,
          input,
          principal,
          principal.user?.id,
        );
        c.header("Location", `/v1/oauth_apps/${created.id}`);
        return c.json(created, 201);
      },
    }),
    operation({
      method: "get",
      path: "/{id}",
      operationId: "oauth_apps.retrieve",
      summary: "Retrieve an OAuth app",
      params,
      ok: { 200: json(OAuthAppSchema, "The app") },
      handler: async (c) => c.json(await getOAuthApp(store, c.var.principal.orgId, c.req.valid("param").id)),
    }),
    operation({
      method: "patch",
      path: "/{id}",
      operationId: "oauth_apps.update",
      summary: "Change an OAuth app's name, logo, redirect URIs or scopes",
      params,
      body: OAuthAppUpdateSchema,
      ok: { 200: json(OAuthAppSchema, "The app") },
      handler: async (c) => {
        const { id } = c.req.valid("param");
        const input = parseBody(c, OAuthAppUpdateSchema);
        const principal = c.var.principal;
        return c.json(await updateOAuthApp(store, clock, principal.orgId, id, input, principal));
      },
    }),
    operation({
      method: "post",
      path: "/{id}/rotate_secret",
      operationId: "oauth_apps.rotate_secret",
      summary: "Replace the client secret; the old one stops working at once",
      params,
      ok: { 200: json(WithSecretSchema, "The app with its new secret") },
      handler: async (c) => {
        const principal = c.var.principal;
        const { id } = c.req.valid("param");
        return c.json(await rotateOAuthAppSecret(store, clock, principal.orgId, id, principal));
      },
    }),
    operation({
      method: "delete",
      path: "/{id}",
      operationId: "oauth_apps.delete",
      summary: "Delete an OAuth app, its installations and every token it holds",
      params,
      ok: { 204: { description: "Deleted" } },
      handler: async (c) => {
        const { principal } = c.var;
        await deleteOAuthApp(store, clock, principal.orgId, c.req.valid("param").id, actorOf(principal));
        return c.body(null, 204);
      },
    }),
  ]);
}

/**
 * `/v1/oauth_installations`: the apps installed in this organization (its consents), and
 * disconnecting one, which stops every token of it at once. `keys:read` / `keys:write`.
 */
export function oauthInstallationRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  return declareRoutes({ tags: ["platform"], scope: "keys" }, [
    operation({
      method: "get",
      path: "/",
      operationId: "oauth_installations.list",
      summary: "List the apps installed in the organization",
      ok: { 200: json(z.object({ data: z.array(OAuthInstallationSchema) }), "Installed apps") },
      handler: async (c) => c.json({ data: await listInstallations(deps.store, c.var.principal.orgId) }),
    }),
    operation({
      method: "post",
      path: "/{id}/disconnect",
      operationId: "oauth_installations.disconnect",
      summary: "Disconnect an app: every token of the installation stops working now",
      params: idParams("oauth_installation", "oins"),
      ok: { 200: json(OAuthInstallationSchema, "The disconnected installation") },
      handler: async (c) => {
        const { id } = c.req.valid("param");
        const { principal } = c.var;
        return c.json(
          await disconnectInstallation(deps.store, deps.clock, principal.orgId, id, actorOf(principal)),
        );
      },
    }),
  ]);
}
