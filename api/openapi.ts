import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import type { Handler, MiddlewareHandler } from "hono";
import { z } from "zod";
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from "../engines/index.ts";
import type { AppEnv } from "./env.ts";

/** Problem body as documented; every error response has this shape. */
export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string(),
    request_id: z.string(),
    errors: z.array(z.object({ param: z.string(), code: z.string(), message: z.string() })),
    errors_omitted: z
      .number()
      .int()
      .optional()
      .meta({ description: "Field errors left out of `errors`, which lists the first 100" }),
  })
  .meta({ id: "Problem" });

const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: ProblemSchema } },
});

/** Error responses every authenticated route can give. */
export const COMMON_ERRORS = {
  400: problem("Malformed request or parameters"),
  401: problem("Missing, invalid or revoked credential"),
  403: problem("The credential lacks the scope"),
  429: problem("Rate limit exceeded"),
};

export const WRITE_ERRORS = {
  ...COMMON_ERRORS,
  409: problem("Conflict, invalid state transition, or idempotency key in use"),
  413: problem("Body too large"),
  415: problem("Body is not JSON"),
  422: problem("Body fails validation"),
};

/** Conditional requests (If-Match / If-None-Match) that do not hold: engine state only today. */
export const PRECONDITION_FAILED = { 412: problem("If-Match or If-None-Match does not hold") };

export const NOT_FOUND = { 404: problem("No such object in this organization") };

/** What every `/v1` route but the invocation of a public function needs: a credential. */
export const BEARER = [{ bearerAuth: [] }];

export function listOf(schema: z.ZodType) {
  return z.object({
    data: z.array(schema),
    meta: z.object({ total: z.number().int(), page: z.number().int(), per_page: z.number().int() }),
  });
}

export const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** A JSON request body, as a route declaration's `request.body` (the `jsonBody` middleware reads it). */
export const jsonRequest = (schema: z.ZodType) => ({ content: { "application/json": { schema } } });

export type Registry = OpenAPIHono<AppEnv>["openAPIRegistry"];

/** `page` and `per_page`, for lists that take no other parameter that matters. */
export const PagingQuery = z.object({
  page: z.string().optional().meta({ description: "Page number, from 1" }),
  per_page: z
    .string()
    .optional()
    .meta({ description: `Items per page, 1-${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE})` }),
});

export const IdParam = z.object({ id: z.string().meta({ param: { name: "id", in: "path" } }) });

/**
 * A `/v1` route's declaration: `createRoute`'s config, with what clients are generated from made
 * required (an `operationId` in `resource.verb` style, a summary, tags).
 */
export type RouteDeclaration = RouteConfig & { operationId: string; summary: string; tags: string[] };

/**
 * Declares a route once: its OpenAPI entry (a `createRoute` config: method, path, request and
 * response schemas, tags, summary, operationId) and the handler serving it, so the document
 * cannot drift from what the server does.
 *
 * It is `app.openapi(route, handler)` without the validators that adds: handlers check their input
 * with `parseBody`, `parseListQuery` and `idParam`, which answer with the project's problem bodies
 * (a 400 naming each param, a 422 naming each field), where @hono/zod-openapi's validators answer
 * in their own shape and would read again a body the `jsonBody` middleware has already consumed.
 * `routingPath` overrides the Hono path derived from `path` (`/{id}` → `/:id`), for a parameter
 * with its own pattern.
 *
 * @example
 * declareRoute(
 *   app,
 *   createRoute({
 *     method: "get",
 *     path: "/{id}",
 *     operationId: "invoices.retrieve",
 *     summary: "Retrieve an invoice",
 *     tags: ["finance"],
 *     security: BEARER,
 *     request: { params: IdParam },
 *     responses: { 200: json(InvoiceSchema, "The invoice"), ...COMMON_ERRORS, ...NOT_FOUND },
 *   }),
 *   async (c) => c.json(await invoices.get(orgOf(c), idParam(c, "invoice"))),
 * );
 */
export function declareRoute<P extends string>(
  app: OpenAPIHono<AppEnv>,
  route: RouteDeclaration & { path: P },
  handler: Handler<AppEnv, HonoPath<P>>,
  routingPath: string = route.path.replaceAll(/\/{(.+?)}/g, "/:$1"),
): void {
  const { middleware, ...documented } = route;
  app.openAPIRegistry.registerPath(documented);
  const before: MiddlewareHandler<AppEnv>[] = middleware === undefined ? [] : [middleware].flat();
  app.on([route.method.toUpperCase()], [routingPath], ...before, handler as Handler<AppEnv>);
}

/** An OpenAPI path as Hono writes it: `/{id}/runs/{run}` → `/:id/runs/:run`. */
type HonoPath<T extends string> = T extends `${infer Start}/{${infer Param}}${infer Rest}`
  ? `${Start}/:${Param}${HonoPath<Rest>}`
  : T;
