import { createHash } from "node:crypto";
import {
  AppError,
  type Clock,
  type FieldError,
  type FunctionConfig,
  type FunctionLimits,
} from "../core/index.ts";
import { hasScope, mergeMetadata, recordEvents, type Actor } from "../engines/index.ts";
import type { Queryable, Store } from "../store/index.ts";
import { compileFunction, type CompiledFunction } from "./compile.ts";
import {
  deleteFunction,
  findFunction,
  insertDeployment,
  insertDeploymentFiles,
  requireFunction,
  upsertFunction,
} from "./function-queries.ts";
import { parseLimits, parseTool, parseTriggers, type FunctionRow } from "./function-rows.ts";
import type {
  FunctionAuth,
  FunctionDeploy,
  FunctionObject,
  FunctionTool,
  Trigger,
} from "./function-schemas.ts";
import { keptFiles, uploadedBytes } from "./source-files.ts";
import { checkTriggers, subscribe } from "./triggers.ts";

/**
 * Deploy and delete, the service's first phase: compile (a 422 changes nothing), then in
 * one transaction a new immutable deployment, the function pointed at it, its triggers
 * subscribed and `function.deployed` recorded.
 */

/** Who deploys: the key's id (trigger runs act as it) and its scopes. */
export interface Deployer {
  keyId: string;
  scopes: readonly string[];
}

export interface FunctionDeploys {
  /**
   * `actor`: who deploys, as `function.deployed` records it; `deployer`: the API key deploying it,
   * which its trigger runs act as.
   */
  deploy(orgId: string, input: FunctionDeploy, actor: Actor, deployer?: Deployer): Promise<FunctionObject>;
  /** Records `function.deleted` by `actor`. */
  delete(orgId: string, ref: string, actor: Actor): Promise<void>;
}

export interface DeployDeps {
  store: Store;
  clock: Clock;
  config: FunctionConfig;
  eventTypes: readonly string[];
  changed(orgId: string, functionId: string): void;
}

export function createFunctionDeploys(deps: DeployDeps): FunctionDeploys {
  const { store, clock, config } = deps;
  return {
    async deploy(orgId, input, actor, deployer) {
      if (input.triggers) checkTriggers(input.triggers, deps.eventTypes);
      const files = keptFiles(input.files);
      checkFilesSize(files, config.maxFilesBytes);
      const compiled = await compileFunction(input.files, input.entrypoint, {
        maxBundleBytes: config.maxBundleBytes,
      });
      const deployed = await store.transaction((tx) =>
        writeDeployment(tx, { orgId, input, actor, deployer, compiled, files, config, now: clock.now() }),
      );
      deps.changed(orgId, deployed.id);
      return deployed;
    },

    async delete(orgId, ref, actor) {
      const functionId = await store.transaction(async (tx) => {
        const object = await requireFunction(tx, orgId, ref, true);
        await deleteFunction(tx, orgId, object.id);
        await recordEvents(tx, orgId, clock.now(), [{ type: "function.deleted", object, actor }]);
        return object.id;
      });
      deps.changed(orgId, functionId);
    },
  };
}

interface DeployWrite {
  orgId: string;
  input: FunctionDeploy;
  actor: Actor;
  deployer: Deployer | undefined;
  compiled: CompiledFunction;
  /** What the function may read (`keptFiles`). */
  files: ReturnType<typeof keptFiles>;
  config: FunctionConfig;
  now: Date;
}

/**
 * The kept files are held in memory beside each warm isolate of the version (the invoker
 * loads them at boot, so a read is a synchronous lookup): their total is the operator's to
 * bound, as the bundle's is. Past it: a 422 at `files`, before anything is compiled.
 */
function checkFilesSize(files: ReturnType<typeof keptFiles>, maxBytes: number): void {
  const bytes = files.reduce((sum, file) => sum + file.content.byteLength, 0);
  if (bytes <= maxBytes) return;
  throw new AppError(
    "validation_failed",
    `The function's files are ${bytes} bytes (all but node_modules/, kept for Deno.readFile); the limit is ${maxBytes}`,
    { errors: [{ param: "files", code: "files_too_large", message: `at most ${maxBytes} bytes in all` }] },
  );
}

/** The deploy's transaction, with the serving version (if any) locked while the next is written. */
async function writeDeployment(tx: Queryable, write: DeployWrite): Promise<FunctionObject> {
  const { orgId, input, compiled, now } = write;
  const before = await findFunction(tx, orgId, input.name, true);
  const settings = carriedSettings(input, before, write.config);
  if (write.deployer) requireEventScope(settings.triggers, write.deployer);
  const metadata = mergeMetadata(before?.metadata ?? {}, input.metadata) ?? before?.metadata ?? {};
  const { id: functionId, version } = await upsertFunction(tx, { orgId, name: input.name, metadata, now });
  const deploymentId = await insertDeployment(tx, {
    orgId,
    functionId,
    version,
    entrypoint: compiled.entrypoint,
    ...settings,
    code: compiled.code,
    codeSha256: createHash("sha256").update(compiled.code).digest("hex"),
    files: Object.entries(input.files)
      .map(([path, content]) => ({ path, bytes: uploadedBytes(content) }))
      .sort((a, b) => (a.path < b.path ? -1 : 1)),
    warnings: compiled.warnings,
    deployedBy: write.deployer?.keyId ?? null,
    now,
  });
  await insertDeploymentFiles(tx, orgId, deploymentId, write.files);
  await subscribe(tx, orgId, functionId, settings.triggers);
  const object = await requireFunction(tx, orgId, functionId);
  const previousAttributes = before ? { version: before.active_version } : undefined;
  await recordEvents(tx, orgId, now, [
    {
      type: "function.deployed",
      object,
      ...(previousAttributes ? { previousAttributes } : {}),
      actor: write.actor,
    },
  ]);
  return object;
}

/** Left out, auth, limits, triggers and tool stay what the serving deployment had (a new function: key, defaults, none). */
function carriedSettings(
  input: FunctionDeploy,
  before: FunctionRow | undefined,
  config: FunctionConfig,
): { auth: FunctionAuth; limits: FunctionLimits; triggers: Trigger[]; tool: FunctionTool | null } {
  const auth = input.auth ?? before?.auth ?? "key";
  const limits = resolveLimits(
    { ...(before ? parseLimits(before.limits) : config.defaultLimits), ...input.limits },
    config.maxLimits,
  );
  const triggers = input.triggers ?? (before ? parseTriggers(before.triggers) : []);
  const tool = input.tool === undefined ? (before ? parseTool(before.tool) : null) : input.tool;
  return { auth, limits, triggers, tool };
}

/**
 * An event trigger hands the function every event of its kinds: what GET /v1/events shows.
 * Checked on the triggers kept from the serving version too: new code would receive them.
 */
function requireEventScope(triggers: readonly Trigger[], deployer: Deployer): void {
  if (!triggers.some((t) => t.type === "event") || hasScope(deployer.scopes, "webhooks", "read")) return;
  throw new AppError("insufficient_scope", "Event triggers need a key that can read events (webhooks:read)", {
    headers: {
      "WWW-Authenticate": 'Bearer realm="tessera", error="insufficient_scope", scope="webhooks:read"',
    },
  });
}

/** Applies the operator's maxima to the limits a deploy asks for (422 naming each one over). */
export function resolveLimits(asked: FunctionLimits, max: FunctionLimits): FunctionLimits {
  const errors: FieldError[] = [];
  for (const name of ["memory_mb", "cpu_time_ms", "wall_time_ms"] as const) {
    if (asked[name] > max[name]) {
      errors.push({
        param: `limits.${name}`,
        code: "too_big",
        message: `at most ${max[name]} (the operator's maximum)`,
      });
    }
  }
  if (errors.length > 0) {
    throw new AppError("validation_failed", `${errors[0]!.param}: ${errors[0]!.message}`, { errors });
  }
  return { memory_mb: asked.memory_mb, cpu_time_ms: asked.cpu_time_ms, wall_time_ms: asked.wall_time_ms };
}
