import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, Handler, MiddlewareHandler } from "hono";
import type { z } from "zod";
import { AppError } from "../../core/index.ts";
import type { ListQuery, ScopeName } from "../../engines/index.ts";
import type { AppEnv } from "../env.ts";
import { listQuerySchema, parseListQuery, type ListSpec } from "../list-params.ts";
import { requireScope } from "../middleware/auth.ts";
import {
  BEARER,
  jsonRequest,
  problemsByRule,
  type ProblemStatus,
  type RouteDeclaration,
} from "../openapi.ts";

type Method = "get" | "post" | "put" | "patch" | "delete";

/**
 * The scope an operation needs: a family, whose access follows the method (GET and HEAD read,
 * anything else writes: ARCHITECTURE.md, "Authentication and permissions"), or a family with the
 * access fixed (asking SYNC is a POST that changes nothing).
 */
export type Scope = ScopeName | { name: ScopeName; access: "read" | "write" };
/** One scope, or several that are all needed (a snapshot holds figures of three engines). */
export type Scopes = Scope | readonly Scope[];

/** Path parameters: an object of string schemas, each refusing what names nothing (api/path-params.ts). */
type ParamsSchema = z.ZodObject;

/**
 * What a handler's `c.req.valid()` gives, by what its operation declares: `"param"`, the path
 * parameters as their schema output them; `"query"`, a list's parsed query (`ListQuery`).
 */
type DeclaredInput<S extends ParamsSchema | undefined, L extends ListSpec | undefined> = {
  out: (S extends ParamsSchema ? { param: z.output<S> } : Record<never, never>) &
    (L extends ListSpec ? { query: ListQuery } : Record<never, never>);
};

/** An OpenAPI path as Hono writes it: `/{id}/runs/{run}` → `/:id/runs/:run`. */
type HonoPath<T extends string> = T extends `${infer Start}/{${infer Param}}${infer Rest}`
  ? `${Start}/:${Param}${HonoPath<Rest>}`
  : T;

/**
 * One operation, declared once: what the document shows and what the router serves both come
 * from it. The problem responses follow by rule (`problemsByRule`, api/openapi.ts); every
 * operation needs a credential (`BEARER`); the scope is the router's unless it says otherwise.
 * The caller's organization is `c.var.principal.orgId`.
 */
export interface Operation<
  P extends string,
  S extends ParamsSchema | undefined = undefined,
  L extends ListSpec | undefined = undefined,
> {
  method: Method;
  /** Relative to where the router is mounted; `{name}` for a path parameter. */
  path: P;
  /** `resource.verb`: what generated clients call it. */
  operationId: string;
  summary: string;
  description?: string;
  /**
   * The scope needed when it is not the router's. A function of the parameters when a parameter
   * names it (`/v1/engines/{engine}/…`): then it is checked after them, so an unknown engine is a
   * 404 for any key; a fixed scope is checked before them.
   */
  scope?: Scopes | ((params: z.output<NonNullable<S>>) => Scopes);
  /**
   * Path parameters, validated by the schema the document shows before the handler runs
   * (`c.req.valid("param")`). A value the schema refuses names nothing: 404 with its message.
   */
  params?: S;
  /**
   * A list's query parameters (page, sort, filters…): documented as `listQuerySchema(list)` unless
   * `query` says otherwise, and parsed before the handler runs (`c.req.valid("query")`; a 400
   * naming each bad parameter).
   */
  list?: L;
  /** Query parameters as documented, when they are not (only) `list`'s; the handler reads them. */
  query?: z.ZodObject;
  /** Request headers as documented (conditions: `If-Match`); the handler reads them. */
  headers?: z.ZodObject;
  /** The JSON body as documented; the handler reads it with `parseBody(c, schema)` (api/validate.ts). */
  body?: z.ZodType;
  /** The success responses: `{ 200: json(Schema, "The thing") }`. */
  ok: RouteDeclaration["responses"];
  /**
   * Problems beyond the rule (`{ 404: true }`: in the house's words), or the rule's in the
   * operation's own words (`{ 409: "Already decided, or expired" }`). Only for real exceptions.
   */
  errors?: Partial<Record<ProblemStatus, string | true>>;
  /** Hono's path, when a parameter needs a pattern of its own (`:key{[\s\S]+}` spans segments). */
  routingPath?: string;
  handler: Handler<AppEnv, HonoPath<P>, DeclaredInput<S, L>>;
}

/**
 * An operation with its types erased, as a router holds it: `operation()` checked its handler
 * against its own path, parameters and list, which one list of operations cannot name at once.
 */
export type AnyOperation = Omit<
  Operation<string, ParamsSchema | undefined, ListSpec | undefined>,
  "handler" | "scope"
> & {
  scope?: Scopes | ((params: Record<string, unknown>) => Scopes);
  handler: Handler<AppEnv>;
};

/**
 * Declares one operation as data. Its handler is typed by what the declaration says: the path's
 * parameters (`c.req.valid("param")`) and, for a list, its query (`c.req.valid("query")`).
 *
 * @example
 * operation({
 *   method: "get",
 *   path: "/{id}",
 *   operationId: "invoices.retrieve",
 *   summary: "Retrieve an invoice",
 *   params: idParams("invoice", "inv"),
 *   ok: { 200: json(InvoiceSchema, "The invoice") },
 *   handler: async (c) => c.json(await invoices.get(c.var.principal.orgId, c.req.valid("param").id)),
 * })
 */
export function operation<
  P extends string,
  S extends ParamsSchema | undefined = undefined,
  L extends ListSpec | undefined = undefined,
>(declared: Operation<P, S, L>): AnyOperation {
  return declared as unknown as AnyOperation;
}

/** What a router's operations share: their tags, and the scope each needs unless it says otherwise. */
export interface RouterDefaults {
  tags: string[];
  scope?: Scopes;
}

/** A router's sub-app, for the rare router that registers a component before its operations. */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>();
}

/**
 * Serves `operations` on a sub-app (mounted with `app.route`, which merges its OpenAPI registry
 * into the app's), each documented and served from its one declaration, in order: a route Hono
 * would otherwise shadow (`/latest` before `/{id}`) comes first.
 */
export function declareRoutes(
  defaults: RouterDefaults,
  operations: readonly AnyOperation[],
  app: OpenAPIHono<AppEnv> = createRouter(),
): OpenAPIHono<AppEnv> {
  for (const declared of operations) {
    app.openAPIRegistry.registerPath(documented(declared, defaults));
    const routingPath = declared.routingPath ?? declared.path.replaceAll(/\/{(.+?)}/g, "/:$1");
    const steps = stepsBefore(declared, defaults);
    app.on([declared.method.toUpperCase()], [routingPath], ...steps, declared.handler);
  }
  return app;
}

/** The operation as the document shows it, its keys in the order the document has them. */
function documented(declared: AnyOperation, defaults: RouterDefaults): RouteDeclaration {
  const { method, path, operationId, summary, description, params, list, headers, body, ok } = declared;
  const query = declared.query ?? (list === undefined ? undefined : listQuerySchema(list));
  const request = {
    ...(params === undefined ? {} : { params }),
    ...(query === undefined ? {} : { query }),
    ...(headers === undefined ? {} : { headers }),
    ...(body === undefined ? {} : { body: jsonRequest(body) }),
  };
  return {
    tags: defaults.tags,
    security: BEARER,
    operationId,
    summary,
    ...(description === undefined ? {} : { description }),
    method,
    path,
    ...(Object.keys(request).length === 0 ? {} : { request }),
    responses: { ...ok, ...problemsByRule(method, path, declared.errors) },
  };
}

/**
 * The steps before the handler, in order: a fixed scope (403: a key without it learns nothing of
 * the parameters), the path parameters (404) and a scope one of them names, then a list's query.
 */
function stepsBefore(declared: AnyOperation, defaults: RouterDefaults): MiddlewareHandler<AppEnv>[] {
  const scope = declared.scope ?? defaults.scope;
  if (typeof scope === "function" && declared.params === undefined) {
    // Its scope would never be checked: refuse the declaration, not the requests.
    throw new Error(`${declared.operationId}: a scope named by a parameter needs \`params\``);
  }
  const steps = scope === undefined || typeof scope === "function" ? [] : scopeChecks(scope);
  if (declared.params !== undefined) {
    steps.push(validateParams(declared.params, typeof scope === "function" ? scope : undefined));
  }
  if (declared.list !== undefined) steps.push(parseList(declared.list));
  return steps;
}

/** `requireScope` for each scope (api/middleware/auth.ts: the 403 and its challenge). */
function scopeChecks(scopes: Scopes): MiddlewareHandler<AppEnv>[] {
  const isOne = (value: Scopes): value is Scope => typeof value === "string" || "name" in value;
  return (isOne(scopes) ? [scopes] : scopes).map((scope) =>
    typeof scope === "string" ? requireScope(scope) : requireScope(scope.name, scope.access),
  );
}

/**
 * The path parameters, checked by the schema the document shows. A value it refuses names
 * nothing: a 404 with the schema's message (`No such invoice: 'x'`), what a lookup that found
 * nothing says, so text the store cannot hold (a NUL byte) never reaches SQL. Then the scope
 * a parameter names, if any.
 */
function validateParams(
  schema: ParamsSchema,
  scopeOf: ((params: Record<string, unknown>) => Scopes) | undefined,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const result = schema.safeParse(c.req.param());
    if (!result.success) throw new AppError("not_found", result.error.issues[0]?.message ?? "No such object");
    c.req.addValidatedData("param", result.data);
    if (scopeOf === undefined) return next();
    await inTurn(scopeChecks(scopeOf(result.data)), c, next);
  };
}

/** Runs `steps` one after the other, then `next`. */
async function inTurn(
  steps: readonly MiddlewareHandler<AppEnv>[],
  c: Context<AppEnv, string>,
  next: () => Promise<void>,
): Promise<void> {
  const [first, ...rest] = steps;
  if (first === undefined) return next();
  await first(c, () => inTurn(rest, c, next));
}

/** A list's query parameters, parsed into a `ListQuery` (a 400 naming each bad one). */
function parseList(list: ListSpec): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.req.addValidatedData("query", parseListQuery(queryParams(c), list));
    await next();
  };
}

/** The request's query parameters as the URL holds them (repeated ones too; `get` gives the first). */
export function queryParams(c: Context): URLSearchParams {
  return new URL(c.req.url).searchParams;
}

/** The request's path as sent, percent-encoding and all (Hono's `c.req.path` is partly decoded). */
export function rawPath(c: Context): string {
  return new URL(c.req.url).pathname;
}
