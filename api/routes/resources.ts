import type { OpenAPIHono } from "@hono/zod-openapi";
import type { z } from "zod";
import type { AnyResourceService } from "../../engines/index.ts";
import type { AppEnv } from "../env.ts";
import { json, listOf, type Registry } from "../openapi.ts";
import { idParams } from "../path-params.ts";
import { parseBody } from "../validate.ts";
import { createRouter, declareRoutes, operation } from "./declare.ts";

/**
 * The five routes of a resource, declared from its definition: list, create, retrieve,
 * update, delete (operation ids `<name>.list` … `<name>.delete`). Scope is the resource's
 * engine; every call is scoped to the caller's organization, so another organization's id
 * is a plain 404.
 */
export function resourceRoutes(service: AnyResourceService): OpenAPIHono<AppEnv> {
  const { definition } = service;
  const { name, object, engine } = definition;
  const app = createRouter();
  const object_ = named(app.openAPIRegistry, capitalize(object), definition.schemas.object);
  const params = idParams(object, definition.prefix);

  return declareRoutes(
    { tags: [engine], scope: engine },
    [
      operation({
        method: "get",
        path: "/",
        operationId: `${name}.list`,
        summary: `List ${name}`,
        list: definition,
        ok: { 200: json(listOf(object_), `A page of ${name}`) },
        handler: async (c) => {
          // listJson's text already ends with the newline (cached with the page).
          const body = await service.listJson(c.var.principal.orgId, c.req.valid("query"));
          return c.body(body, 200, { "Content-Type": "application/json" });
        },
      }),
      operation({
        method: "post",
        path: "/",
        operationId: `${name}.create`,
        summary: `Create a ${object}`,
        body: definition.schemas.create as z.ZodType,
        ok: { 201: json(object_, `The created ${object}`) },
        handler: async (c) => {
          const input: unknown = parseBody(c, definition.schemas.create);
          const created = (await service.create(c.var.principal.orgId, input)) as { id: string };
          c.header("Location", `/v1/${name}/${created.id}`);
          return c.json(created, 201);
        },
      }),
      operation({
        method: "get",
        path: "/{id}",
        operationId: `${name}.retrieve`,
        summary: `Retrieve a ${object}`,
        params,
        ok: { 200: json(object_, `The ${object}`) },
        handler: async (c) => c.json(await service.get(c.var.principal.orgId, c.req.valid("param").id)),
      }),
      operation({
        method: "patch",
        path: "/{id}",
        operationId: `${name}.update`,
        summary: `Update a ${object}`,
        params,
        body: definition.schemas.update as z.ZodType,
        ok: { 200: json(object_, `The updated ${object}`) },
        handler: async (c) => {
          const patch: unknown = parseBody(c, definition.schemas.update);
          return c.json(await service.update(c.var.principal.orgId, c.req.valid("param").id, patch));
        },
      }),
      operation({
        method: "delete",
        path: "/{id}",
        operationId: `${name}.delete`,
        summary: `Delete a ${object}`,
        params,
        ok: { 204: { description: "Deleted" } },
        handler: async (c) => {
          await service.delete(c.var.principal.orgId, c.req.valid("param").id);
          return c.body(null, 204);
        },
      }),
    ],
    app,
  );
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
