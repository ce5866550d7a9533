import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { z } from "zod";
import type { AnyResourceService } from "../../engines/index.ts";
import type { AppEnv } from "../env.ts";
import { parseListQuery, listQuerySchema } from "../list-params.ts";
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
  type Registry,
} from "../openapi.ts";
import { idParam, parseBody } from "../validate.ts";

/**
 * The five routes of a resource, declared from its definition: list, create, retrieve,
 * update, delete (operation ids `<name>.list` … `<name>.delete`). Scope is the resource's
 * engine; every call is scoped to the caller's organization, so another organization's id
 * is a plain 404.
 */
export function resourceRoutes(service: AnyResourceService): OpenAPIHono<AppEnv> {
  const { definition } = service;
  const { name, object, engine } = definition;
  const app = new OpenAPIHono<AppEnv>();
  const orgOf = (c: Context<AppEnv>) => c.get("principal").orgId;
  const idOf = (c: Context<AppEnv>) => idParam(c, definition.object);
  app.use("*", requireScope(engine));
  const doc = { tags: [engine], security: BEARER };
  const object_ = named(app.openAPIRegistry, capitalize(object), definition.schemas.object);

  declareRoute(
    app,
    createRoute({
      ...doc,
      method: "get",
      path: "/",
      operationId: `${name}.list`,
      summary: `List ${name}`,
      request: { query: listQuerySchema(definition) },
      responses: { 200: json(listOf(object_), `A page of ${name}`), ...COMMON_ERRORS },
    }),
    async (c) => {
      const query = parseListQuery(new URL(c.req.url).searchParams, definition);
      const body = await service.listJson(orgOf(c), query);
      // listJson's text already ends with the newline (cached with the page).
      return c.body(body, 200, { "Content-Type": "application/json" });
    },
  );
  declareRoute(
    app,
    createRoute({
      ...doc,
      method: "post",
      path: "/",
      operationId: `${name}.create`,
      summary: `Create a ${object}`,
      request: { body: jsonRequest(definition.schemas.create as z.ZodType) },
      responses: { 201: json(object_, `The created ${object}`), ...WRITE_ERRORS },
    }),
    async (c) => {
      const input: unknown = parseBody(c, definition.schemas.create);
      const created = (await service.create(orgOf(c), input)) as { id: string };
      c.header("Location", `/v1/${name}/${created.id}`);
      return c.json(created, 201);
    },
  );
  declareRoute(
    app,
    createRoute({
      ...doc,
      method: "get",
      path: "/{id}",
      operationId: `${name}.retrieve`,
      summary: `Retrieve a ${object}`,
      request: { params: IdParam },
      responses: { 200: json(object_, `The ${object}`), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json(await service.get(orgOf(c), idOf(c))),
  );
  declareRoute(
    app,
    createRoute({
      ...doc,
      method: "patch",
      path: "/{id}",
      operationId: `${name}.update`,
      summary: `Update a ${object}`,
      request: { params: IdParam, body: jsonRequest(definition.schemas.update as z.ZodType) },
      responses: { 200: json(object_, `The updated ${object}`), ...WRITE_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const patch: unknown = parseBody(c, definition.schemas.update);
      return c.json(await service.update(orgOf(c), idOf(c), patch));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...doc,
      method: "delete",
      path: "/{id}",
      operationId: `${name}.delete`,
      summary: `Delete a ${object}`,
      request: { params: IdParam },
      responses: { 204: { description: "Deleted" }, ...WRITE_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      await service.delete(orgOf(c), idOf(c));
      return c.body(null, 204);
    },
  );
  return app;
}

/**
 * Registers `schema` as a named component. Schemas built before the OpenAPI
 * extension was loaded lack `.openapi()`, so a fresh copy (`extend({})`) is
 * registered and returned for the routes to reference.
 */
export function named(registry: Registry, name: string, schema: z.ZodType): z.ZodType {
  const copy = "extend" in schema ? (schema as unknown as z.ZodObject).extend({}) : schema;
  return registry.register(name, copy);
}

function capitalize(value: string): string {
  return value.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}
