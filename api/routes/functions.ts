import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import {
  DEPLOYMENT_LIST,
  DeploymentSchema,
  FUNCTION_LIST,
  FUNCTION_NAME,
  FunctionDeploySchema,
  FunctionLogSchema,
  FunctionSchema,
  LOG_LIST,
  RUN_LIST,
  FunctionRunSchema,
  FunctionTriggerRunSchema,
  FunctionTriggerSchema,
  RollbackSchema,
  RunStartSchema,
  SECRET_NAME,
  SecretSchema,
  SecretsUpdateSchema,
  triggerEvent,
  type EventTriggerDeps,
  type FunctionService,
} from "../../runtime/index.ts";
import type { Config } from "../../core/index.ts";
import { actorOf } from "../../engines/index.ts";
import type { AppEnv } from "../env.ts";
import { json, listOf } from "../openapi.ts";
import { eitherPattern, idPattern, namingParam } from "../path-params.ts";
import { parseBody } from "../validate.ts";
import { declareRoutes, operation } from "./declare.ts";
import { INVOKE_ROUTES } from "./function-invoke-docs.ts";

const PATH = "/v1/functions";

/** A function's name or id (`isFunctionRef`, runtime/); anything else names no function (404). */
const Ref = z.object({
  id: namingParam("function", eitherPattern(FUNCTION_NAME, idPattern("fn"))).meta({
    param: { name: "id", in: "path" },
    description: "The function's name or id",
  }),
});
/** A run's id: `frun_` and 32 hex digits, made in SQL (migration 0014). */
const RunRef = Ref.extend({
  run: namingParam("run", /^frun_[0-9a-f]{32}$/).meta({ param: { name: "run", in: "path" } }),
});
/** A version: 1 and up, in digits (what the store's integer holds: nine digits at most). */
const VersionRef = Ref.extend({
  version: namingParam("version", /^[1-9][0-9]{0,8}$/, 20).meta({ param: { name: "version", in: "path" } }),
});
const SecretRef = Ref.extend({
  secret: namingParam("secret", SECRET_NAME).meta({ param: { name: "secret", in: "path" } }),
});
const SecretList = z.object({ data: z.array(SecretSchema) });

/** What `POST …/trigger` runs a function with, besides the service: the invoker and the event catalog. */
export interface FunctionTriggerDeps extends EventTriggerDeps {
  config: Pick<Config, "functionsOrigin" | "publicUrl">;
}

/**
 * `/v1/functions`: deploy (each deploy a new immutable version), list, get, delete,
 * deployments, rollback, secrets, logs, runs and a trigger by hand. Needs `functions:read` /
 * `functions:write`. The invoke operations are documented here (`INVOKE_ROUTES`) and served by
 * the invocation path (api/invocation/), which the app mounts beside these routes.
 */
export function functionRoutes(functions: FunctionService, deps: FunctionTriggerDeps): OpenAPIHono<AppEnv> {
  const app = declareRoutes({ tags: ["functions"], scope: "functions" }, [
    operation({
      method: "get",
      path: "/",
      operationId: "functions.list",
      summary: "List functions",
      list: FUNCTION_LIST,
      ok: { 200: json(listOf(FunctionSchema), "A page of functions") },
      handler: async (c) => c.json(await functions.list(c.var.principal.orgId, c.req.valid("query"))),
    }),
    operation({
      method: "post",
      path: "/",
      operationId: "functions.deploy",
      summary: "Deploy a function: a new immutable version (compile errors are 422 with file:line:column)",
      body: FunctionDeploySchema,
      ok: { 201: json(FunctionSchema, "The function, serving the new version") },
      handler: async (c) => {
        const input = parseBody(c, FunctionDeploySchema);
        const principal = c.var.principal;
        const deployed = await functions.deploy(principal.orgId, input, actorOf(principal), principal);
        c.header("Location", `${PATH}/${deployed.name}`);
        return c.json(deployed, 201);
      },
    }),
    operation({
      method: "get",
      path: "/{id}",
      operationId: "functions.retrieve",
      summary: "Retrieve a function",
      params: Ref,
      ok: { 200: json(FunctionSchema, "The function") },
      handler: async (c) => c.json(await functions.get(c.var.principal.orgId, c.req.valid("param").id)),
    }),
    operation({
      method: "delete",
      path: "/{id}",
      operationId: "functions.delete",
      summary: "Delete a function, its deployments, secrets and logs",
      params: Ref,
      ok: { 204: { description: "Deleted" } },
      handler: async (c) => {
        const { principal } = c.var;
        await functions.delete(principal.orgId, c.req.valid("param").id, actorOf(principal));
        return c.body(null, 204);
      },
    }),
    operation({
      method: "get",
      path: "/{id}/deployments",
      operationId: "functions.list_deployments",
      summary: "List a function's deployments, newest first",
      params: Ref,
      list: DEPLOYMENT_LIST,
      ok: { 200: json(listOf(DeploymentSchema), "A page of deployments") },
      handler: async (c) => {
        const { id } = c.req.valid("param");
        return c.json(await functions.deployments(c.var.principal.orgId, id, c.req.valid("query")));
      },
    }),
    operation({
      method: "get",
      path: "/{id}/deployments/{version}",
      operationId: "functions.retrieve_deployment",
      summary: "Retrieve one deployment",
      params: VersionRef,
      ok: { 200: json(DeploymentSchema, "The deployment") },
      handler: async (c) => {
        const { id, version } = c.req.valid("param");
        return c.json(await functions.deployment(c.var.principal.orgId, id, Number(version)));
      },
    }),
    operation({
      method: "post",
      path: "/{id}/rollback",
      operationId: "functions.rollback",
      summary: "Serve another deployment (default: the one before the serving one)",
      params: Ref,
      body: RollbackSchema,
      ok: { 200: json(FunctionSchema, "The function") },
      handler: async (c) => {
        const { version } = parseBody(c, RollbackSchema);
        const { principal } = c.var;
        const { id } = c.req.valid("param");
        return c.json(await functions.rollback(principal.orgId, id, version, actorOf(principal)));
      },
    }),
    operation({
      method: "get",
      path: "/{id}/secrets",
      operationId: "functions.list_secrets",
      summary: "The names of a function's secrets (values are never returned)",
      params: Ref,
      ok: { 200: json(SecretList, "Secret names") },
      handler: async (c) =>
        c.json({ data: await functions.secrets(c.var.principal.orgId, c.req.valid("param").id) }),
    }),
    operation({
      method: "put",
      path: "/{id}/secrets",
      operationId: "functions.update_secrets",
      summary: "Set secrets (Deno.env / env); null removes one; names left out are kept",
      params: Ref,
      body: SecretsUpdateSchema,
      ok: { 200: json(SecretList, "Secret names") },
      handler: async (c) => {
        const updates = parseBody(c, SecretsUpdateSchema);
        const { id } = c.req.valid("param");
        const { principal } = c.var;
        return c.json({ data: await functions.setSecrets(principal.orgId, id, updates, actorOf(principal)) });
      },
    }),
    operation({
      method: "delete",
      path: "/{id}/secrets/{secret}",
      operationId: "functions.delete_secret",
      summary: "Remove one secret",
      params: SecretRef,
      ok: { 204: { description: "Removed" } },
      handler: async (c) => {
        const { id, secret } = c.req.valid("param");
        await functions.deleteSecret(c.var.principal.orgId, id, secret, actorOf(c.var.principal));
        return c.body(null, 204);
      },
    }),
    operation({
      method: "get",
      path: "/{id}/logs",
      operationId: "functions.list_logs",
      summary: "console.* lines of the function's invocations, newest first (filters: level, request_id)",
      params: Ref,
      list: LOG_LIST,
      ok: { 200: json(listOf(FunctionLogSchema), "A page of log lines") },
      handler: async (c) => {
        const { id } = c.req.valid("param");
        return c.json(await functions.logs(c.var.principal.orgId, id, c.req.valid("query")));
      },
    }),
    operation({
      method: "get",
      path: "/{id}/runs",
      operationId: "functions.list_runs",
      summary: "Runs of the function's event and cron triggers, newest first (filters: status, trigger)",
      params: Ref,
      list: RUN_LIST,
      ok: { 200: json(listOf(FunctionRunSchema), "A page of runs") },
      handler: async (c) => {
        const { id } = c.req.valid("param");
        return c.json(await functions.runs(c.var.principal.orgId, id, c.req.valid("query")));
      },
    }),
    operation({
      method: "post",
      path: "/{id}/runs",
      operationId: "functions.create_run",
      summary:
        "Run one of the function's cron schedules now, as if it had fallen due (422 without cron triggers, or when `schedule` names none of them)",
      params: Ref,
      body: RunStartSchema,
      ok: { 201: json(FunctionRunSchema, "The run, pending") },
      handler: async (c) => {
        const input = parseBody(c, RunStartSchema);
        return c.json(await functions.startRun(c.var.principal.orgId, c.req.valid("param").id, input), 201);
      },
    }),
    operation({
      method: "post",
      path: "/{id}/trigger",
      operationId: "functions.trigger",
      summary:
        "Run the function now as its event trigger would, for a made-up event (not recorded, not delivered, not retried; 422 for an unknown event_type)",
      params: Ref,
      body: FunctionTriggerSchema,
      ok: { 200: json(FunctionTriggerRunSchema, "How the function answered the event") },
      handler: async (c) => {
        const input = parseBody(c, FunctionTriggerSchema);
        const { id } = c.req.valid("param");
        // The URL a run's request names, as the run worker's (main.ts): the function sees the same.
        const origin = deps.config.functionsOrigin?.url ?? deps.config.publicUrl ?? new URL(c.req.url).origin;
        return c.json(await triggerEvent(deps, c.var.principal, id, input, origin));
      },
    }),
    operation({
      method: "get",
      path: "/{id}/runs/{run}",
      operationId: "functions.retrieve_run",
      summary: "Retrieve one trigger run",
      params: RunRef,
      ok: { 200: json(FunctionRunSchema, "The run") },
      handler: async (c) => {
        const { id, run } = c.req.valid("param");
        return c.json(await functions.run(c.var.principal.orgId, id, run));
      },
    }),
    operation({
      method: "post",
      path: "/{id}/runs/{run}/retry",
      operationId: "functions.retry_run",
      summary: "Queue a failed run again, with all its attempts (409 unless it failed)",
      params: RunRef,
      ok: { 200: json(FunctionRunSchema, "The run, pending") },
      handler: async (c) => {
        const { id, run } = c.req.valid("param");
        return c.json(await functions.retryRun(c.var.principal.orgId, id, run));
      },
    }),
  ]);
  // Served by the invocation path (any method, any path below), documented with the rest.
  for (const invoke of INVOKE_ROUTES) app.openAPIRegistry.registerPath(invoke);
  return app;
}
