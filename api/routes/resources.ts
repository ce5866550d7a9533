import type { Context } from "hono";
import { Hono } from "hono";
import type { z } from "zod";
import type { AnyResourceService } from "../../engines/index.ts";
import type { AppEnv } from "../env.ts";
import { parseListQuery, listQuerySchema } from "../list-params.ts";
import { requireScope } from "../middleware/auth.ts";
import { IdParam, json, listOf, NOT_FOUND, COMMON_ERRORS, WRITE_ERRORS, type Registry } from "../openapi.ts";
import { idParam, parseBody } from "../validate.ts";

/**
 * The five routes of a resource, generated from its definition: list, create,
 * get, update, delete. Scope is the resource's engine; every call is scoped to
 * the caller's organization, so another organization's id is a plain 404.
 */
export function resourceRoutes(service: AnyResourceService): Hono<AppEnv> {
  const { definition } = service;
  const app = new Hono<AppEnv>();
  const orgOf = (c: Context<AppEnv>) => c.get("principal").orgId;
  const idOf = (c: Context<AppEnv>) => idParam(c, definition.object);
  app.use("*", requireScope(definition.engine));

  app.get("/", async (c) => {
    const query = parseListQuery(new URL(c.req.url).searchParams, definition);
    const body = await service.listJson(orgOf(c), query);
    return c.body(body, 200, { "Content-Type": "application/json" });
  });
  app.post("/", async (c) => {
    const input: unknown = parseBody(c, definition.schemas.create);
    const created = (await service.create(orgOf(c), input)) as { id: string };
    c.header("Location", `/v1/${definition.name}/${created.id}`);
    return c.json(created, 201);
  });
  app.get("/:id", async (c) => c.json(await service.get(orgOf(c), idOf(c))));
  app.patch("/:id", async (c) => {
    const patch: unknown = parseBody(c, definition.schemas.update);
    return c.json(await service.update(orgOf(c), idOf(c), patch));
  });
  app.delete("/:id", async (c) => {
    await service.delete(orgOf(c), idOf(c));
    return c.body(null, 204);
  });
  return app;
}

/** Documents the routes above in the OpenAPI registry, from the same schemas. */
export function documentResource(registry: Registry, service: AnyResourceService): void {
  const { definition } = service;
  const { name, object, engine } = definition;
  const tags = [engine];
  const security = [{ bearerAuth: [] }];
  const object_ = named(registry, capitalize(object), definition.schemas.object);
  const body = (schema: unknown) => ({ content: { "application/json": { schema: schema as z.ZodType } } });

  registry.registerPath({
    method: "get",
    path: `/v1/${name}`,
    summary: `List ${name}`,
    tags,
    security,
    request: { query: listQuerySchema(definition) },
    responses: { 200: json(listOf(object_), `A page of ${name}`), ...COMMON_ERRORS },
  });
  registry.registerPath({
    method: "post",
    path: `/v1/${name}`,
    summary: `Create a ${object}`,
    tags,
    security,
    request: { body: body(definition.schemas.create) },
    responses: { 201: json(object_, `The created ${object}`), ...WRITE_ERRORS },
  });
  registry.registerPath({
    method: "get",
    path: `/v1/${name}/{id}`,
    summary: `Retrieve a ${object}`,
    tags,
    security,
    request: { params: IdParam },
    responses: { 200: json(object_, `The ${object}`), ...COMMON_ERRORS, ...NOT_FOUND },
  });
  registry.registerPath({
    method: "patch",
    path: `/v1/${name}/{id}`,
    summary: `Update a ${object}`,
    tags,
    security,
    request: { params: IdParam, body: body(definition.schemas.update) },
    responses: { 200: json(object_, `The updated ${object}`), ...WRITE_ERRORS, ...NOT_FOUND },
  });
  registry.registerPath({
    method: "delete",
    path: `/v1/${name}/{id}`,
    summary: `Delete a ${object}`,
    tags,
    security,
    request: { params: IdParam },
    responses: { 204: { description: "Deleted" }, ...WRITE_ERRORS, ...NOT_FOUND },
  });
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
