import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { z } from "zod";
import {
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

const DOC = { tags: ["platform"], security: BEARER };

const WithSecretSchema = OAuthAppSchema.extend({
  client_secret: z
    .string()
    .nullable()
    .meta({ description: "Shown once, now (null for a public app): store it in the app's backend." }),
});

/**
 * `/v1/oauth_apps`: the organization's OAuth apps (Settings → Integrations). An app's client is a
 * credential that can obtain tokens, so managing apps needs the same scopes as API keys:
 * `keys:read` to list, `keys:write` to register, change, rotate and delete. Registering, changing
 * and rotating also pass the "may grant" rule on the app's scopes (an OAuth token grants nothing).
 */
export function oauthAppRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requireScope("keys"));
  const org = (c: Context<AppEnv>) => c.get("principal").orgId;

  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/",
      operationId: "oauth_apps.list",
      summary: "List the organization's OAuth apps (secrets redacted)",
      request: { query: PagingQuery },
      responses: { 200: json(listOf(OAuthAppSchema), "A page of apps"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const query = parseListQuery(new URL(c.req.url).searchParams, {
        filters: {},
        sorts: { created_at: "created_at" },
      });
      return c.json(await listOAuthApps(deps.store, org(c), query.page, query.perPage));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "post",
      path: "/",
      operationId: "oauth_apps.create",
      summary: "Register an OAuth app; the response holds its client secret, once",
      request: { body: jsonRequest(OAuthAppCreateSchema) },
      responses: { 201: json(WithSecretSchema, "The app with its client secret"), ...WRITE_ERRORS },
    }),
    async (c) => {
      const input = parseBody(c, OAuthAppCreateSchema);
      const principal = c.get("principal");
      const created = await createOAuthApp(
        deps.store,
        deps.clock,
        org(c),
        input,
        principal,
        principal.user?.id,
      );
      c.header("Location", `/v1/oauth_apps/${created.id}`);
      return c.json(created, 201);
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/{id}",
      operationId: "oauth_apps.retrieve",
      summary: "Retrieve an OAuth app",
      request: { params: IdParam },
      responses: { 200: json(OAuthAppSchema, "The app"), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json(await getOAuthApp(deps.store, org(c), idParam(c, "oauth_app"))),
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "patch",
      path: "/{id}",
      operationId: "oauth_apps.update",
      summary: "Change an OAuth app's name, logo, redirect URIs or scopes",
      request: { params: IdParam, body: jsonRequest(OAuthAppUpdateSchema) },
      responses: { 200: json(OAuthAppSchema, "The app"), ...WRITE_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const id = idParam(c, "oauth_app");
      const input = parseBody(c, OAuthAppUpdateSchema);
      return c.json(await updateOAuthApp(deps.store, deps.clock, org(c), id, input, c.get("principal")));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "post",
      path: "/{id}/rotate_secret",
      operationId: "oauth_apps.rotate_secret",
      summary: "Replace the client secret; the old one stops working at once",
      request: { params: IdParam },
      responses: {
        200: json(WithSecretSchema, "The app with its new secret"),
        ...WRITE_ERRORS,
        ...NOT_FOUND,
      },
    }),
    async (c) =>
      c.json(
        await rotateOAuthAppSecret(
          deps.store,
          deps.clock,
          org(c),
          idParam(c, "oauth_app"),
          c.get("principal"),
        ),
      ),
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "delete",
      path: "/{id}",
      operationId: "oauth_apps.delete",
      summary: "Delete an OAuth app, its installations and every token it holds",
      request: { params: IdParam },
      responses: { 204: { description: "Deleted" }, ...WRITE_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      await deleteOAuthApp(deps.store, deps.clock, org(c), idParam(c, "oauth_app"));
      return c.body(null, 204);
    },
  );
  return app;
}

/**
 * `/v1/oauth_installations`: the apps installed in this organization (its consents), and
 * disconnecting one, which stops every token of it at once. `keys:read` / `keys:write`.
 */
export function oauthInstallationRoutes(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requireScope("keys"));
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/",
      operationId: "oauth_installations.list",
      summary: "List the apps installed in the organization",
      responses: {
        200: json(z.object({ data: z.array(OAuthInstallationSchema) }), "Installed apps"),
        ...COMMON_ERRORS,
      },
    }),
    async (c) => c.json({ data: await listInstallations(deps.store, c.get("principal").orgId) }),
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "post",
      path: "/{id}/disconnect",
      operationId: "oauth_installations.disconnect",
      summary: "Disconnect an app: every token of the installation stops working now",
      request: { params: IdParam },
      responses: {
        200: json(OAuthInstallationSchema, "The disconnected installation"),
        ...WRITE_ERRORS,
        ...NOT_FOUND,
      },
    }),
    async (c) => {
      const id = idParam(c, "oauth_installation");
      return c.json(await disconnectInstallation(deps.store, deps.clock, c.get("principal").orgId, id));
    },
  );
  return app;
}
