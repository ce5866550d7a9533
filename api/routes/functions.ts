import type { IncomingMessage } from "node:http";
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { Hono, type Context } from "hono";
import { z } from "zod";
import { AppError } from "../../core/index.ts";
import { hasScope, latestSnapshot, type KeyPrincipal } from "../../engines/index.ts";
import {
  DEPLOYMENT_LIST,
  DeploymentSchema,
  FUNCTION_LIST,
  FUNCTION_NAME,
  FunctionDeploySchema,
  FunctionLogSchema,
  FunctionSchema,
  createFunctionInvoker,
  createFunctionService,
  invocationDepthOf,
  invocationPrincipalOf,
  type EngineStateAccess,
  LOG_LIST,
  RUN_LIST,
  FunctionRunSchema,
  RollbackSchema,
  RunStartSchema,
  SECRET_NAME,
  SecretSchema,
  SecretsUpdateSchema,
  type FunctionInvoker,
  type FunctionResponse,
  type FunctionService,
} from "../../runtime/index.ts";
import type { ApiDeps, AppEnv } from "../env.ts";
import { listQuerySchema, parseListQuery } from "../list-params.ts";
import { limitRate, requireScope } from "../middleware/auth.ts";
import { readBody } from "../middleware/json-body.ts";
import {
  BEARER,
  COMMON_ERRORS,
  declareRoute,
  json,
  jsonRequest,
  listOf,
  NOT_FOUND,
  WRITE_ERRORS,
} from "../openapi.ts";
import { INVOKE_ROUTES } from "./function-invoke-docs.ts";
import { parseBody } from "../validate.ts";

const PATH = "/v1/functions";
const ID_SHAPE = /^fn_[0-9A-Za-z]{1,64}$/;
const CHALLENGE = 'Bearer realm="tessera"';
// Hop-by-hop headers belong to this connection, not to the function's request.
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"]);

/**
 * Mounts `/v1/functions` (management and invocation) on `app`, whose own `fetch` serves
 * `ctx.platform.fetch` in-process. Returns the invoker, so other routes can tell it of changes.
 */
export function mountFunctions(
  app: Hono<AppEnv>,
  deps: ApiDeps,
  engineState: EngineStateAccess,
  eventTypes: readonly string[],
): FunctionInvoker {
  const invoker = createFunctionInvoker({
    store: deps.store,
    clock: deps.clock,
    box: deps.secretBox,
    config: deps.config.functions,
    log: deps.log,
    pool: deps.isolates,
    outbound: deps.outbound,
    engineState,
    latestSnapshot: (orgId) => latestSnapshot(deps.store, orgId),
    platformFetch: (request) => Promise.resolve(app.fetch(request)),
  });
  const functions = createFunctionService({
    eventTypes,
    store: deps.store,
    clock: deps.clock,
    box: deps.secretBox,
    config: deps.config.functions,
    onChange: (orgId, functionId) => invoker.forget(orgId, functionId),
  });
  app.route("/v1/functions", invokeRoutes(invoker, deps));
  app.route("/v1/functions", functionRoutes(functions));
  return invoker;
}

/** The `{id}` path parameter: a function name or id; anything else names no function (404). */
function refParam(c: Context<AppEnv>): string {
  const ref = c.req.param("id") ?? "";
  if (!FUNCTION_NAME.test(ref) && !ID_SHAPE.test(ref)) {
    throw new AppError("not_found", `No such function: '${ref.slice(0, 100)}'`);
  }
  return ref;
}

/** The `{run}` path parameter: a run id; anything else names no run (404). */
function runParam(c: Context<AppEnv>): string {
  const id = c.req.param("run") ?? "";
  if (!/^frun_[0-9a-f]{32}$/.test(id)) throw new AppError("not_found", `No such run: '${id.slice(0, 100)}'`);
  return id;
}

/** Whether a path is a function invocation (`/v1/functions/{id}/invoke` and below). */
export function isInvokePath(path: string): boolean {
  return /^\/v1\/functions\/[^/]+\/invoke(?:\/|$)/.test(path);
}

/** Whether an `Authorization` header carries a Tessera API key (invocations authenticate only those). */
export function isApiKeyHeader(header: string | undefined): boolean {
  return /^Bearer\s+sk_/i.test(header ?? "");
}

/**
 * Whether the request carries a Tessera API key, or in-process the caller a trigger run acts
 * as (the invoke route authenticates only those; any other is an anonymous call).
 */
export function hasApiKey(c: Context): boolean {
  return isApiKeyHeader(c.req.header("authorization")) || invocationPrincipalOf(c.req.raw) !== undefined;
}

/**
 * A Node request's headers as the Fetch `Headers` of the request would list them
 * (lowercased, repeated names joined by ", ", cookies by "; ", each set-cookie apart),
 * without hop-by-hop ones and, when the caller gave a key, without `authorization`.
 * Read off `rawHeaders`: building a Headers object (validating every name and value
 * again, after Node's parser) cost more than the rest of an invocation's routing.
 */
export function invocationHeaders(raw: string[], withKey: boolean): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  const joined = new Map<string, string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (name.startsWith(":") || HOP_BY_HOP.has(name) || (withKey && name === "authorization")) continue;
    const value = raw[i + 1]!;
    if (name === "set-cookie") headers.push([name, value]);
    else {
      const before = joined.get(name);
      joined.set(name, before === undefined ? value : `${before}${name === "cookie" ? "; " : ", "}${value}`);
    }
  }
  for (const pair of joined) headers.push(pair);
  return headers;
}

/** One call of `/v1/functions/{ref}/invoke…`, however it arrived (the app, or the data plane). */
export interface InvocationCall {
  /** The `{id}` path segment, decoded: a function name or id. */
  ref: string;
  requestId: string;
  method: string;
  /** The original public URL. */
  url: string;
  /** The caller, when it sent a Tessera API key (already authenticated). */
  principal: KeyPrincipal | undefined;
  authorization: string | undefined;
  /** As `invocationHeaders` lists them. */
  headers: Array<[string, string]>;
  /** The request body, at most `maxBytes` (413 past it). */
  readBody(maxBytes: number): Promise<Buffer>;
  /** How many invocations deep this one is (`ctx.platform.fetch` nesting). */
  depth: number;
}

/**
 * Serves one invocation: the function the call names answers. A private function needs a
 * key with `functions:read`; a public one answers anyone, and anonymous callers name it by
 * id (a name means something only within an organization). The API key is consumed here:
 * the function sees the caller as `ctx.user`, never the key. `headers` are the X-RateLimit-*
 * ones of an anonymous call.
 */
export async function serveInvocation(
  invoker: FunctionInvoker,
  deps: Pick<ApiDeps, "config" | "rateLimiter" | "clock">,
  call: InvocationCall,
): Promise<{ response: FunctionResponse; headers: Record<string, string> }> {
  const { ref, principal } = call;
  if (!FUNCTION_NAME.test(ref) && !ID_SHAPE.test(ref)) {
    throw new AppError("not_found", `No such function: '${ref.slice(0, 100)}'`);
  }
  const fn = await invoker.resolve(principal?.orgId, ref);
  if (!fn && principal) throw new AppError("not_found", `No such function: '${ref}'`);
  if (!fn || (fn.auth === "key" && !principal)) {
    if (call.authorization) {
      throw new AppError("invalid_token", "This function needs a Tessera API key (Bearer sk_live_…)", {
        headers: { "WWW-Authenticate": `${CHALLENGE}, error="invalid_token"` },
      });
    }
    throw new AppError("unauthenticated", "Send your API key as Authorization: Bearer sk_live_…", {
      headers: { "WWW-Authenticate": CHALLENGE },
    });
  }
  if (fn.auth === "key" && !hasScope(principal!.scopes, "functions", "read")) {
    throw new AppError("insufficient_scope", "This key lacks the functions:read scope", {
      headers: { "WWW-Authenticate": `${CHALLENGE}, error="insufficient_scope", scope="functions:read"` },
    });
  }
  // Anonymous calls to a public function share one budget, the organization's plan limit for
  // that function: a flood of them stops at 429 before it reaches the isolate.
  const headers = principal ? {} : await limitRate(deps, `public:${fn.functionId}`, fn.plan);
  const { method } = call;
  const body =
    method === "GET" || method === "HEAD" ? null : await call.readBody(deps.config.functions.maxRequestBytes);
  const response = await invoker.invoke(fn, {
    requestId: call.requestId,
    method,
    url: call.url,
    headers: call.headers,
    body: body && body.length > 0 ? new Uint8Array(body.buffer, body.byteOffset, body.byteLength) : null,
    principal,
    authorization: principal ? call.authorization : undefined,
    depth: call.depth,
  });
  return { response, headers };
}

/**
 * Any method on `/v1/functions/{id}/invoke` and below, in the app: what `ctx.platform.fetch`
 * and requests that reach the app (not the data plane, api/data-plane.ts) are served by.
 */
export function invokeRoutes(
  invoker: FunctionInvoker,
  deps: Pick<ApiDeps, "config" | "rateLimiter" | "clock">,
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const handler = async (c: Context<AppEnv>) => {
    const principal = c.get("principal") as KeyPrincipal | undefined;
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    const { response, headers } = await serveInvocation(invoker, deps, {
      ref: c.req.param("id") ?? "",
      requestId: c.get("requestId"),
      method: c.req.method,
      url: c.req.url,
      principal,
      authorization: c.req.header("authorization"),
      headers: incoming
        ? invocationHeaders(incoming.rawHeaders, !!principal)
        : [...c.req.raw.headers].filter(
            ([name]) => !HOP_BY_HOP.has(name) && !(name === "authorization" && principal),
          ),
      readBody: (maxBytes) => readBody(c, maxBytes),
      depth: invocationDepthOf(c.req.raw),
    });
    const out = new Headers();
    for (const [name, value] of response.headers) out.append(name, value);
    for (const [name, value] of Object.entries(headers)) out.set(name, value);
    // Text as bytes: a Fetch Response would add a content-type the function did not send.
    const body = typeof response.body === "string" ? Buffer.from(response.body) : response.body;
    return new Response(body as ConstructorParameters<typeof Response>[0], {
      status: response.status,
      ...(response.statusText ? { statusText: response.statusText } : {}),
      headers: out,
    });
  };
  app.all("/:id/invoke", handler);
  app.all("/:id/invoke/*", handler);
  return app;
}

const DOC = { tags: ["functions"], security: BEARER };
const Ref = z.object({
  id: z.string().meta({ param: { name: "id", in: "path" }, description: "The function's name or id" }),
});
const RunRef = Ref.extend({ run: z.string().meta({ param: { name: "run", in: "path" } }) });
const SecretList = z.object({ data: z.array(SecretSchema) });

/**
 * `/v1/functions`: deploy (each deploy a new immutable version), list, get, delete,
 * deployments, rollback, secrets and logs. Needs `functions:read` / `functions:write`.
 * The invoke operations are documented here (`INVOKE_ROUTES`) and served by `invokeRoutes`.
 */
export function functionRoutes(functions: FunctionService): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requireScope("functions"));
  const org = (c: Context<AppEnv>) => c.get("principal").orgId;

  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/",
      operationId: "functions.list",
      summary: "List functions",
      request: { query: listQuerySchema(FUNCTION_LIST) },
      responses: { 200: json(listOf(FunctionSchema), "A page of functions"), ...COMMON_ERRORS },
    }),
    async (c) => {
      const query = parseListQuery(new URL(c.req.url).searchParams, FUNCTION_LIST);
      return c.json(await functions.list(org(c), query));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "post",
      path: "/",
      operationId: "functions.deploy",
      summary: "Deploy a function: a new immutable version (compile errors are 422 with file:line:column)",
      request: { body: jsonRequest(FunctionDeploySchema) },
      responses: { 201: json(FunctionSchema, "The function, serving the new version"), ...WRITE_ERRORS },
    }),
    async (c) => {
      const input = parseBody(c, FunctionDeploySchema);
      const principal = c.get("principal");
      const deployed = await functions.deploy(org(c), input, principal);
      c.header("Location", `${PATH}/${deployed.name}`);
      return c.json(deployed, 201);
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/{id}",
      operationId: "functions.retrieve",
      summary: "Retrieve a function",
      request: { params: Ref },
      responses: { 200: json(FunctionSchema, "The function"), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json(await functions.get(org(c), refParam(c))),
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "delete",
      path: "/{id}",
      operationId: "functions.delete",
      summary: "Delete a function, its deployments, secrets and logs",
      request: { params: Ref },
      responses: { 204: { description: "Deleted" }, ...WRITE_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      await functions.delete(org(c), refParam(c));
      return c.body(null, 204);
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/{id}/deployments",
      operationId: "functions.list_deployments",
      summary: "List a function's deployments, newest first",
      request: { params: Ref, query: listQuerySchema(DEPLOYMENT_LIST) },
      responses: {
        200: json(listOf(DeploymentSchema), "A page of deployments"),
        ...COMMON_ERRORS,
        ...NOT_FOUND,
      },
    }),
    async (c) => {
      const query = parseListQuery(new URL(c.req.url).searchParams, DEPLOYMENT_LIST);
      return c.json(await functions.deployments(org(c), refParam(c), query));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/{id}/deployments/{version}",
      operationId: "functions.retrieve_deployment",
      summary: "Retrieve one deployment",
      request: {
        params: Ref.extend({ version: z.string().meta({ param: { name: "version", in: "path" } }) }),
      },
      responses: { 200: json(DeploymentSchema, "The deployment"), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const version = Number(c.req.param("version"));
      if (!Number.isSafeInteger(version) || version < 1) {
        throw new AppError("not_found", `No such version: '${c.req.param("version").slice(0, 20)}'`);
      }
      return c.json(await functions.deployment(org(c), refParam(c), version));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "post",
      path: "/{id}/rollback",
      operationId: "functions.rollback",
      summary: "Serve another deployment (default: the one before the serving one)",
      request: { params: Ref, body: jsonRequest(RollbackSchema) },
      responses: { 200: json(FunctionSchema, "The function"), ...WRITE_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const { version } = parseBody(c, RollbackSchema);
      return c.json(await functions.rollback(org(c), refParam(c), version));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/{id}/secrets",
      operationId: "functions.list_secrets",
      summary: "The names of a function's secrets (values are never returned)",
      request: { params: Ref },
      responses: { 200: json(SecretList, "Secret names"), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json({ data: await functions.secrets(org(c), refParam(c)) }),
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "put",
      path: "/{id}/secrets",
      operationId: "functions.update_secrets",
      summary: "Set secrets (Deno.env / env); null removes one; names left out are kept",
      request: { params: Ref, body: jsonRequest(SecretsUpdateSchema) },
      responses: { 200: json(SecretList, "Secret names"), ...WRITE_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const updates = parseBody(c, SecretsUpdateSchema);
      return c.json({ data: await functions.setSecrets(org(c), refParam(c), updates) });
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "delete",
      path: "/{id}/secrets/{secret}",
      operationId: "functions.delete_secret",
      summary: "Remove one secret",
      request: { params: Ref.extend({ secret: z.string().meta({ param: { name: "secret", in: "path" } }) }) },
      responses: { 204: { description: "Removed" }, ...WRITE_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const name = c.req.param("secret");
      if (!SECRET_NAME.test(name)) throw new AppError("not_found", `No such secret: '${name.slice(0, 100)}'`);
      await functions.deleteSecret(org(c), refParam(c), name);
      return c.body(null, 204);
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/{id}/logs",
      operationId: "functions.list_logs",
      summary: "console.* lines of the function's invocations, newest first (filters: level, request_id)",
      request: { params: Ref, query: listQuerySchema(LOG_LIST) },
      responses: {
        200: json(listOf(FunctionLogSchema), "A page of log lines"),
        ...COMMON_ERRORS,
        ...NOT_FOUND,
      },
    }),
    async (c) => {
      const query = parseListQuery(new URL(c.req.url).searchParams, LOG_LIST);
      return c.json(await functions.logs(org(c), refParam(c), query));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/{id}/runs",
      operationId: "functions.list_runs",
      summary: "Runs of the function's event and cron triggers, newest first (filters: status, trigger)",
      request: { params: Ref, query: listQuerySchema(RUN_LIST) },
      responses: { 200: json(listOf(FunctionRunSchema), "A page of runs"), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const query = parseListQuery(new URL(c.req.url).searchParams, RUN_LIST);
      return c.json(await functions.runs(org(c), refParam(c), query));
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "post",
      path: "/{id}/runs",
      operationId: "functions.create_run",
      summary:
        "Run one of the function's cron schedules now, as if it had fallen due (422 without cron triggers, or when `schedule` names none of them)",
      request: { params: Ref, body: jsonRequest(RunStartSchema) },
      responses: { 201: json(FunctionRunSchema, "The run, pending"), ...WRITE_ERRORS, ...NOT_FOUND },
    }),
    async (c) => {
      const input = parseBody(c, RunStartSchema);
      return c.json(await functions.startRun(org(c), refParam(c), input), 201);
    },
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "get",
      path: "/{id}/runs/{run}",
      operationId: "functions.retrieve_run",
      summary: "Retrieve one trigger run",
      request: { params: RunRef },
      responses: { 200: json(FunctionRunSchema, "The run"), ...COMMON_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json(await functions.run(org(c), refParam(c), runParam(c))),
  );
  declareRoute(
    app,
    createRoute({
      ...DOC,
      method: "post",
      path: "/{id}/runs/{run}/retry",
      operationId: "functions.retry_run",
      summary: "Queue a failed run again, with all its attempts (409 unless it failed)",
      request: { params: RunRef },
      responses: { 200: json(FunctionRunSchema, "The run, pending"), ...WRITE_ERRORS, ...NOT_FOUND },
    }),
    async (c) => c.json(await functions.retryRun(org(c), refParam(c), runParam(c))),
  );
  // Served by `invokeRoutes` (any method, any path below), documented with the rest.
  for (const invoke of INVOKE_ROUTES) app.openAPIRegistry.registerPath(invoke);
  return app;
}
