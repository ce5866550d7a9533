import { Hono, type Context } from "hono";
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
import { COMMON_ERRORS, json, listOf, NOT_FOUND, WRITE_ERRORS, type Registry } from "../openapi.ts";
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

/**
 * `/v1/functions`: deploy (each deploy a new immutable version), list, get, delete,
 * deployments, rollback, secrets and logs. Needs `functions:read` / `functions:write`.
 */
export function functionRoutes(functions: FunctionService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requireScope("functions"));
  const org = (c: Context<AppEnv>) => c.get("principal").orgId;

  app.get("/", async (c) => {
    const query = parseListQuery(new URL(c.req.url).searchParams, FUNCTION_LIST);
    return c.json(await functions.list(org(c), query));
  });
  app.post("/", async (c) => {
    const input = parseBody(c, FunctionDeploySchema);
    const principal = c.get("principal");
    const deployed = await functions.deploy(org(c), input, principal);
    c.header("Location", `${PATH}/${deployed.name}`);
    return c.json(deployed, 201);
  });
  app.get("/:id", async (c) => c.json(await functions.get(org(c), refParam(c))));
  app.delete("/:id", async (c) => {
    await functions.delete(org(c), refParam(c));
    return c.body(null, 204);
  });
  app.get("/:id/deployments", async (c) => {
    const query = parseListQuery(new URL(c.req.url).searchParams, DEPLOYMENT_LIST);
    return c.json(await functions.deployments(org(c), refParam(c), query));
  });
  app.get("/:id/deployments/:version", async (c) => {
    const version = Number(c.req.param("version"));
    if (!Number.isSafeInteger(version) || version < 1) {
      throw new AppError("not_found", `No such version: '${c.req.param("version").slice(0, 20)}'`);
    }
    return c.json(await functions.deployment(org(c), refParam(c), version));
  });
  app.post("/:id/rollback", async (c) => {
    const { version } = parseBody(c, RollbackSchema);
    return c.json(await functions.rollback(org(c), refParam(c), version));
  });
  app.get("/:id/secrets", async (c) => c.json({ data: await functions.secrets(org(c), refParam(c)) }));
  app.put("/:id/secrets", async (c) => {
    const updates = parseBody(c, SecretsUpdateSchema);
    return c.json({ data: await functions.setSecrets(org(c), refParam(c), updates) });
  });
  app.delete("/:id/secrets/:secret", async (c) => {
    const name = c.req.param("secret");
    if (!SECRET_NAME.test(name)) throw new AppError("not_found", `No such secret: '${name.slice(0, 100)}'`);
    await functions.deleteSecret(org(c), refParam(c), name);
    return c.body(null, 204);
  });
  app.get("/:id/logs", async (c) => {
    const query = parseListQuery(new URL(c.req.url).searchParams, LOG_LIST);
    return c.json(await functions.logs(org(c), refParam(c), query));
  });
  app.get("/:id/runs", async (c) => {
    const query = parseListQuery(new URL(c.req.url).searchParams, RUN_LIST);
    return c.json(await functions.runs(org(c), refParam(c), query));
  });
  app.post("/:id/runs", async (c) => {
    const input = parseBody(c, RunStartSchema);
    return c.json(await functions.startRun(org(c), refParam(c), input), 201);
  });
  app.get("/:id/runs/:run", async (c) => c.json(await functions.run(org(c), refParam(c), runParam(c))));
  app.post("/:id/runs/:run/retry", async (c) =>
    c.json(await functions.retryRun(org(c), refParam(c), runParam(c))),
  );
  return app;
}

export function documentFunctions(registry: Registry): void {
  const security = [{ bearerAuth: [] }];
  const tags = ["functions"];
  const Ref = z.object({
    id: z.string().meta({ param: { name: "id", in: "path" }, description: "The function's name or id" }),
  });
  const secretList = z.object({ data: z.array(SecretSchema) });
  registry.registerPath({
    method: "get",
    path: PATH,
    summary: "List functions",
    tags,
    security,
    request: { query: listQuerySchema(FUNCTION_LIST) },
    responses: { 200: json(listOf(FunctionSchema), "A page of functions"), ...COMMON_ERRORS },
  });
  registry.registerPath({
    method: "post",
    path: PATH,
    summary: "Deploy a function: a new immutable version (compile errors are 422 with file:line:column)",
    tags,
    security,
    request: { body: { content: { "application/json": { schema: FunctionDeploySchema } } } },
    responses: { 201: json(FunctionSchema, "The function, serving the new version"), ...WRITE_ERRORS },
  });
  const routes = [
    ["get", "/{id}", "Retrieve a function", { 200: json(FunctionSchema, "The function") }],
    [
      "delete",
      "/{id}",
      "Delete a function, its deployments, secrets and logs",
      { 204: { description: "Deleted" } },
    ],
    [
      "get",
      "/{id}/deployments",
      "List a function's deployments, newest first",
      { 200: json(listOf(DeploymentSchema), "A page of deployments") },
    ],
    [
      "get",
      "/{id}/secrets",
      "The names of a function's secrets (values are never returned)",
      { 200: json(secretList, "Secret names") },
    ],
    [
      "get",
      "/{id}/logs",
      "console.* lines of the function's invocations, newest first (filters: level, request_id)",
      { 200: json(listOf(FunctionLogSchema), "A page of log lines") },
    ],
    [
      "get",
      "/{id}/runs",
      "Runs of the function's event and cron triggers, newest first (filters: status, trigger)",
      { 200: json(listOf(FunctionRunSchema), "A page of runs") },
    ],
  ] as const;
  for (const [method, path, summary, responses] of routes) {
    registry.registerPath({
      method,
      path: `${PATH}${path}`,
      summary,
      tags,
      security,
      request: { params: Ref },
      responses: { ...responses, ...(method === "get" ? COMMON_ERRORS : WRITE_ERRORS), ...NOT_FOUND },
    });
  }
  registry.registerPath({
    method: "get",
    path: `${PATH}/{id}/deployments/{version}`,
    summary: "Retrieve one deployment",
    tags,
    security,
    request: {
      params: Ref.extend({ version: z.string().meta({ param: { name: "version", in: "path" } }) }),
    },
    responses: { 200: json(DeploymentSchema, "The deployment"), ...COMMON_ERRORS, ...NOT_FOUND },
  });
  const RunRef = Ref.extend({ run: z.string().meta({ param: { name: "run", in: "path" } }) });
  registry.registerPath({
    method: "get",
    path: `${PATH}/{id}/runs/{run}`,
    summary: "Retrieve one trigger run",
    tags,
    security,
    request: { params: RunRef },
    responses: { 200: json(FunctionRunSchema, "The run"), ...COMMON_ERRORS, ...NOT_FOUND },
  });
  registry.registerPath({
    method: "post",
    path: `${PATH}/{id}/runs`,
    summary:
      "Run one of the function's cron schedules now, as if it had fallen due (422 without cron triggers, or when `schedule` names none of them)",
    tags,
    security,
    request: { params: Ref, body: { content: { "application/json": { schema: RunStartSchema } } } },
    responses: { 201: json(FunctionRunSchema, "The run, pending"), ...WRITE_ERRORS, ...NOT_FOUND },
  });
  registry.registerPath({
    method: "post",
    path: `${PATH}/{id}/runs/{run}/retry`,
    summary: "Queue a failed run again, with all its attempts (409 unless it failed)",
    tags,
    security,
    request: { params: RunRef },
    responses: { 200: json(FunctionRunSchema, "The run, pending"), ...WRITE_ERRORS, ...NOT_FOUND },
  });
  registry.registerPath({
    method: "post",
    path: `${PATH}/{id}/rollback`,
    summary: "Serve another deployment (default: the one before the serving one)",
    tags,
    security,
    request: { params: Ref, body: { content: { "application/json": { schema: RollbackSchema } } } },
    responses: { 200: json(FunctionSchema, "The function"), ...WRITE_ERRORS, ...NOT_FOUND },
  });
  registry.registerPath({
    method: "put",
    path: `${PATH}/{id}/secrets`,
    summary: "Set secrets (Deno.env / env); null removes one; names left out are kept",
    tags,
    security,
    request: { params: Ref, body: { content: { "application/json": { schema: SecretsUpdateSchema } } } },
    responses: { 200: json(secretList, "Secret names"), ...WRITE_ERRORS, ...NOT_FOUND },
  });
  registry.registerPath({
    method: "delete",
    path: `${PATH}/{id}/secrets/{secret}`,
    summary: "Remove one secret",
    tags,
    security,
    request: { params: Ref.extend({ secret: z.string().meta({ param: { name: "secret", in: "path" } }) }) },
    responses: { 204: { description: "Removed" }, ...WRITE_ERRORS, ...NOT_FOUND },
  });
  for (const method of ["get", "post", "put", "patch", "delete"] as const) {
    registry.registerPath({
      method,
      path: `${PATH}/{id}/invoke`,
      summary:
        "Invoke the function (any method, and any path below /invoke); it answers with its own response",
      tags,
      security: [{ bearerAuth: [] }, {}],
      request: { params: Ref },
      responses: {
        200: { description: "Whatever the function answers (any status, headers and body, streamed)" },
        401: COMMON_ERRORS[401],
        403: COMMON_ERRORS[403],
        ...NOT_FOUND,
        413: WRITE_ERRORS[413],
        500: { description: "function_failed or function_memory_limit / function_cpu_limit (problem+json)" },
        504: { description: "function_timeout (problem+json)" },
      },
    });
  }
}
