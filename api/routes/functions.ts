import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { z } from "zod";
import { AppError } from "../../core/index.ts";
import {
  DEPLOYMENT_LIST,
  DeploymentSchema,
  FUNCTION_LIST,
  FunctionDeploySchema,
  FunctionLogSchema,
  FunctionSchema,
  isFunctionRef,
  LOG_LIST,
  RUN_LIST,
  FunctionRunSchema,
  RollbackSchema,
  RunStartSchema,
  SECRET_NAME,
  SecretSchema,
  SecretsUpdateSchema,
  type FunctionService,
} from "../../runtime/index.ts";
import type { AppEnv } from "../env.ts";
import { listQuerySchema, parseListQuery } from "../list-params.ts";
import { requireScope } from "../middleware/auth.ts";
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

/** The `{id}` path parameter: a function name or id; anything else names no function (404). */
function refParam(c: Context<AppEnv>): string {
  const ref = c.req.param("id") ?? "";
  if (!isFunctionRef(ref)) {
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

const DOC = { tags: ["functions"], security: BEARER };
const Ref = z.object({
  id: z.string().meta({ param: { name: "id", in: "path" }, description: "The function's name or id" }),
});
const RunRef = Ref.extend({ run: z.string().meta({ param: { name: "run", in: "path" } }) });
const SecretList = z.object({ data: z.array(SecretSchema) });

/**
 * `/v1/functions`: deploy (each deploy a new immutable version), list, get, delete,
 * deployments, rollback, secrets and logs. Needs `functions:read` / `functions:write`.
 * The invoke operations are documented here (`INVOKE_ROUTES`) and served by the invocation path
 * (api/invocation/), which the app mounts beside these routes.
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
