import { createHash } from "node:crypto";
import {
  AppError,
  newId,
  type Clock,
  type FieldError,
  type FunctionConfig,
  type FunctionLimits,
  type SecretBox,
} from "../core/index.ts";
import {
  baseFields,
  hasScope,
  likePattern,
  mergeMetadata,
  recordEvents,
  rfc,
  SqlWhere,
  type ListQuery,
  type Page,
  type ResourceDefinition,
} from "../engines/index.ts";
import type { Queryable, Row, Store } from "../store/index.ts";
import { compileFunction } from "./compile.ts";
import {
  MAX_SECRETS,
  RUN_STATUSES,
  RUN_TRIGGERS,
  type Deployment,
  type FunctionAuth,
  type FunctionDeploy,
  type FunctionLog,
  type FunctionLogLevel,
  type FunctionObject,
  type FunctionRun,
  type SecretInfo,
  type Trigger,
} from "./function-schemas.ts";
import { renderRun } from "./function-runs.ts";
import { checkTriggers, insertCronRuns, RUNS_CHANNEL, subscribe } from "./triggers.ts";

export interface FunctionServiceOptions {
  store: Store;
  clock: Clock;
  box: SecretBox;
  config: FunctionConfig;
  /** Every kind in the event catalog (GET /v1/event_types): what event triggers may name. */
  eventTypes: readonly string[];
  /** Called after a change that makes warm isolates or cached lookups stale (deploy, rollback, delete, secrets). */
  onChange?: (orgId: string, functionId: string) => void;
}

/** `GET /v1/functions`: sorted by `created_at` or `name`; `q` matches the name. */
export const FUNCTION_LIST = {
  filters: {},
  sorts: { created_at: "created_at", name: "name" },
} as const satisfies Pick<ResourceDefinition<unknown, unknown, unknown>, "filters" | "sorts">;

/** `GET /v1/functions/{name}/deployments`: newest first by default. */
export const DEPLOYMENT_LIST = {
  filters: {},
  sorts: { version: "version", created_at: "created_at" },
} as const satisfies Pick<ResourceDefinition<unknown, unknown, unknown>, "filters" | "sorts">;

/** `GET /v1/functions/{name}/runs`: newest first; `status` and `trigger` filters. */
export const RUN_LIST = {
  filters: {
    status: { kind: "enum", values: RUN_STATUSES },
    trigger: { kind: "enum", values: RUN_TRIGGERS },
  },
  sorts: { created_at: "created_at" },
} as const satisfies Pick<ResourceDefinition<unknown, unknown, unknown>, "filters" | "sorts">;

/** `GET /v1/functions/{name}/logs`: newest first; `level` and `request_id` filters. */
export const LOG_LIST = {
  filters: {
    level: { kind: "enum", values: ["debug", "info", "log", "warn", "error"] },
    request_id: { kind: "equals" },
  },
  sorts: { created_at: "created_at" },
} as const satisfies Pick<ResourceDefinition<unknown, unknown, unknown>, "filters" | "sorts">;

/** Who deploys: the key's id (trigger runs act as it) and its scopes. */
export interface Deployer {
  keyId: string;
  scopes: readonly string[];
}

export interface FunctionService {
  /** `deployer`: the API key deploying it, which its trigger runs act as. */
  deploy(orgId: string, input: FunctionDeploy, deployer?: Deployer): Promise<FunctionObject>;
  list(orgId: string, query: ListQuery): Promise<Page<FunctionObject>>;
  /** By name or by id (`fn_…`). */
  get(orgId: string, ref: string): Promise<FunctionObject>;
  delete(orgId: string, ref: string): Promise<void>;
  deployments(orgId: string, ref: string, query: ListQuery): Promise<Page<Deployment>>;
  deployment(orgId: string, ref: string, version: number): Promise<Deployment>;
  /** Serves an older (or newer) deployment; without a version, the one before the active one. */
  rollback(orgId: string, ref: string, version: number | undefined): Promise<FunctionObject>;
  secrets(orgId: string, ref: string): Promise<SecretInfo[]>;
  setSecrets(orgId: string, ref: string, updates: Record<string, string | null>): Promise<SecretInfo[]>;
  deleteSecret(orgId: string, ref: string, name: string): Promise<void>;
  logs(orgId: string, ref: string, query: ListQuery): Promise<Page<FunctionLog>>;
  runs(orgId: string, ref: string, query: ListQuery): Promise<Page<FunctionRun>>;
  run(orgId: string, ref: string, runId: string): Promise<FunctionRun>;
  /** Queues a failed run again, with a fresh set of attempts. */
  retryRun(orgId: string, ref: string, runId: string): Promise<FunctionRun>;
  /** Queues a run of one of the function's cron schedules now, as if it had fallen due. */
  startRun(orgId: string, ref: string, input: { schedule?: string }): Promise<FunctionRun>;
}

/**
 * Functions of one organization at a time: every query is scoped by `org_id`, every
 * deploy, rollback and delete records its event in the same transaction. A deploy
 * compiles first (a 422 changes nothing), then writes a new immutable deployment.
 */
export function createFunctionService(options: FunctionServiceOptions): FunctionService {
  const { store, clock, box, config } = options;
  const changed = (orgId: string, functionId: string) => options.onChange?.(orgId, functionId);

  return {
    async deploy(orgId, input, deployer) {
      if (input.triggers) checkTriggers(input.triggers, options.eventTypes);
      const compiled = await compileFunction(input.files, input.entrypoint, {
        maxBundleBytes: config.maxBundleBytes,
      });
      const deployed = await store.transaction(async (tx) => {
        const now = clock.now();
        const previous = await tx.query(
          `SELECT f.*, d.auth, d.limits, d.triggers FROM functions f
           JOIN function_deployments d ON d.function_id = f.id AND d.version = f.active_version
           WHERE f.org_id = $1 AND f.name = $2 FOR UPDATE OF f`,
          [orgId, input.name],
        );
        const before = previous[0];
        // Left out, auth and limits stay what the serving deployment had (a new function: key, defaults).
        const auth: FunctionAuth = input.auth ?? (before?.auth as FunctionAuth | undefined) ?? "key";
        const limits = resolveLimits(
          { ...((before?.limits as FunctionLimits | undefined) ?? config.defaultLimits), ...input.limits },
          config.maxLimits,
        );
        const triggers = input.triggers ?? (before?.triggers as Trigger[] | undefined) ?? [];
        // An event trigger hands the function every event of its kinds: what GET /v1/events shows.
        // Checked on the triggers kept from the serving version too: new code would receive them.
        if (
          deployer &&
          triggers.some((t) => t.type === "event") &&
          !hasScope(deployer.scopes, "webhooks", "read")
        ) {
          throw new AppError(
            "insufficient_scope",
            "Event triggers need a key that can read events (webhooks:read)",
            {
              headers: {
                "WWW-Authenticate":
                  'Bearer realm="tessera", error="insufficient_scope", scope="webhooks:read"',
              },
            },
          );
        }
        const metadata = mergeMetadata(before?.metadata ?? {}, input.metadata) ?? before?.metadata ?? {};
        const rows = await tx.query(
          `INSERT INTO functions (id, org_id, name, active_version, latest_version, metadata, created_at, updated_at)
           VALUES ($1, $2, $3, 1, 1, $4::jsonb, $5::timestamptz, $5::timestamptz)
           ON CONFLICT (org_id, name) DO UPDATE SET latest_version = functions.latest_version + 1,
             active_version = functions.latest_version + 1, metadata = $4::jsonb, updated_at = $5::timestamptz
           RETURNING id, active_version`,
          [newId("fn"), orgId, input.name, metadata, now.toISOString()],
        );
        const functionId = rows[0]!.id as string;
        const version = rows[0]!.active_version as number;
        const files = Object.entries(input.files)
          .map(([path, source]) => ({ path, bytes: Buffer.byteLength(source) }))
          .sort((a, b) => (a.path < b.path ? -1 : 1));
        await tx.query(
          `INSERT INTO function_deployments (id, org_id, function_id, version, entrypoint, auth, limits, code,
             code_sha256, files, warnings, created_at, triggers, deployed_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10::jsonb, $11::jsonb, $12::timestamptz,
             $13::jsonb, $14)`,
          [
            newId("fdep"),
            orgId,
            functionId,
            version,
            compiled.entrypoint,
            auth,
            limits,
            compiled.code,
            createHash("sha256").update(compiled.code).digest("hex"),
            files,
            compiled.warnings,
            now.toISOString(),
            triggers,
            deployer?.keyId ?? null,
          ],
        );
        await subscribe(tx, orgId, functionId, triggers);
        const object = await selectFunction(tx, orgId, functionId, false);
        const previousAttributes = before ? { version: before.active_version } : undefined;
        await recordEvents(tx, orgId, now, [
          { type: "function.deployed", object, ...(previousAttributes ? { previousAttributes } : {}) },
        ]);
        return object;
      });
      changed(orgId, deployed.id);
      return deployed;
    },

    async list(orgId, query) {
      const where = new SqlWhere();
      where.add(`f.org_id = ${where.bind(orgId)}`);
      if (query.q) where.add(`f.name ILIKE ${where.bind(likePattern(query.q))}`);
      addTimeBounds(where, query, { created: "f.created_at", updated: "f.updated_at" });
      const column =
        FUNCTION_LIST.sorts[query.sort.field as keyof typeof FUNCTION_LIST.sorts] ?? "created_at";
      const order = query.sort.descending ? "DESC" : "ASC";
      const [rows, counted] = await Promise.all([
        store.query(
          `${FUNCTION_SELECT} ${where.toSql()} ORDER BY f.${column} ${order}, f.id ${order}
           LIMIT ${query.perPage} OFFSET ${(query.page - 1) * query.perPage}`,
          where.params,
        ),
        store.query<{ n: number }>(`SELECT count(*) AS n FROM functions f ${where.toSql()}`, where.params),
      ]);
      return page(rows.map(renderFunction), counted[0]?.n ?? 0, query);
    },

    get(orgId, ref) {
      return selectFunction(store, orgId, ref, false);
    },

    async delete(orgId, ref) {
      const functionId = await store.transaction(async (tx) => {
        const object = await selectFunction(tx, orgId, ref, true);
        await tx.query("DELETE FROM functions WHERE org_id = $1 AND id = $2", [orgId, object.id]);
        await recordEvents(tx, orgId, clock.now(), [{ type: "function.deleted", object }]);
        return object.id;
      });
      changed(orgId, functionId);
    },

    async deployments(orgId, ref, query) {
      const fn = await selectFunction(store, orgId, ref, false);
      const column =
        DEPLOYMENT_LIST.sorts[query.sort.field as keyof typeof DEPLOYMENT_LIST.sorts] ?? "version";
      const order = query.sort.descending ? "DESC" : "ASC";
      const [rows, counted] = await Promise.all([
        store.query(
          `SELECT ${DEPLOYMENT_COLUMNS} FROM function_deployments
           WHERE org_id = $1 AND function_id = $2 ORDER BY ${column} ${order}, version ${order}
           LIMIT ${query.perPage} OFFSET ${(query.page - 1) * query.perPage}`,
          [orgId, fn.id],
        ),
        store.query<{ n: number }>(
          "SELECT count(*) AS n FROM function_deployments WHERE org_id = $1 AND function_id = $2",
          [orgId, fn.id],
        ),
      ]);
      return page(
        rows.map((row) => renderDeployment(row, fn.version)),
        counted[0]?.n ?? 0,
        query,
      );
    },

    async deployment(orgId, ref, version) {
      const fn = await selectFunction(store, orgId, ref, false);
      const rows = await store.query(
        `SELECT ${DEPLOYMENT_COLUMNS} FROM function_deployments
         WHERE org_id = $1 AND function_id = $2 AND version = $3`,
        [orgId, fn.id, version],
      );
      if (!rows[0]) throw new AppError("not_found", `Function '${fn.name}' has no version ${version}`);
      return renderDeployment(rows[0], fn.version);
    },

    async rollback(orgId, ref, version) {
      const rolled = await store.transaction(async (tx) => {
        const now = clock.now();
        const current = await selectFunction(tx, orgId, ref, true);
        const target =
          version ??
          (
            await tx.query<{ version: number }>(
              `SELECT max(version) AS version FROM function_deployments
               WHERE org_id = $1 AND function_id = $2 AND version < $3`,
              [orgId, current.id, current.version],
            )
          )[0]?.version;
        if (!target) {
          throw new AppError(
            "conflict",
            `Function '${current.name}' has no version before ${current.version}`,
          );
        }
        const exists = await tx.query<{ triggers: Trigger[] }>(
          "SELECT triggers FROM function_deployments WHERE org_id = $1 AND function_id = $2 AND version = $3",
          [orgId, current.id, target],
        );
        if (exists.length === 0) {
          throw new AppError("validation_failed", `Function '${current.name}' has no version ${target}`, {
            errors: [{ param: "version", code: "invalid_reference", message: `no version ${target}` }],
          });
        }
        await tx.query(
          "UPDATE functions SET active_version = $3, updated_at = $4::timestamptz WHERE org_id = $1 AND id = $2",
          [orgId, current.id, target, now.toISOString()],
        );
        await subscribe(tx, orgId, current.id, exists[0]!.triggers);
        const object = await selectFunction(tx, orgId, current.id, false);
        if (target !== current.version) {
          await recordEvents(tx, orgId, now, [
            { type: "function.deployed", object, previousAttributes: { version: current.version } },
          ]);
        }
        return object;
      });
      changed(orgId, rolled.id);
      return rolled;
    },

    async secrets(orgId, ref) {
      const fn = await selectFunction(store, orgId, ref, false);
      return selectSecrets(store, orgId, fn.id);
    },

    async setSecrets(orgId, ref, updates) {
      const result = await store.transaction(async (tx) => {
        const fn = await selectFunction(tx, orgId, ref, true);
        const now = clock.now().toISOString();
        for (const [name, value] of Object.entries(updates)) {
          if (value === null) {
            await tx.query(
              "DELETE FROM function_secrets WHERE org_id = $1 AND function_id = $2 AND name = $3",
              [orgId, fn.id, name],
            );
            continue;
          }
          await tx.query(
            `INSERT INTO function_secrets (org_id, function_id, name, value, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5::timestamptz, $5::timestamptz)
             ON CONFLICT (function_id, name) DO UPDATE SET value = $4, updated_at = $5::timestamptz`,
            [orgId, fn.id, name, box.seal(value), now],
          );
        }
        // A new revision: every node boots a fresh isolate with the new env.
        await tx.query(
          "UPDATE functions SET secrets_revision = secrets_revision + 1, updated_at = $3::timestamptz WHERE org_id = $1 AND id = $2",
          [orgId, fn.id, now],
        );
        const secrets = await selectSecrets(tx, orgId, fn.id);
        if (secrets.length > MAX_SECRETS) {
          const message = `a function holds at most ${MAX_SECRETS} secrets`;
          throw new AppError("validation_failed", message, {
            errors: [{ param: "body", code: "too_many", message }],
          });
        }
        return { functionId: fn.id, secrets };
      });
      changed(orgId, result.functionId);
      return result.secrets;
    },

    async deleteSecret(orgId, ref, name) {
      const functionId = await store.transaction(async (tx) => {
        const fn = await selectFunction(tx, orgId, ref, true);
        const rows = await tx.query(
          "DELETE FROM function_secrets WHERE org_id = $1 AND function_id = $2 AND name = $3 RETURNING name",
          [orgId, fn.id, name],
        );
        if (rows.length === 0)
          throw new AppError("not_found", `Function '${fn.name}' has no secret '${name}'`);
        await tx.query(
          "UPDATE functions SET secrets_revision = secrets_revision + 1, updated_at = $3::timestamptz WHERE org_id = $1 AND id = $2",
          [orgId, fn.id, clock.now().toISOString()],
        );
        return fn.id;
      });
      changed(orgId, functionId);
    },

    async logs(orgId, ref, query) {
      const fn = await selectFunction(store, orgId, ref, false);
      const where = new SqlWhere();
      where.add(`org_id = ${where.bind(orgId)}`);
      where.add(`function_id = ${where.bind(fn.id)}`);
      const levels = query.filters.level;
      if (levels?.length) where.add(`level = ANY(${where.bind(levels)}::text[])`);
      const requestId = query.filters.request_id?.[0];
      if (requestId) where.add(`request_id = ${where.bind(requestId)}`);
      if (query.q) where.add(`message ILIKE ${where.bind(likePattern(query.q))}`);
      addTimeBounds(where, query, { created: "created_at" });
      const order = query.sort.descending ? "DESC" : "ASC";
      const [rows, counted] = await Promise.all([
        store.query(
          `SELECT * FROM function_logs ${where.toSql()} ORDER BY created_at ${order}, seq ${order}, id ${order}
           LIMIT ${query.perPage} OFFSET ${(query.page - 1) * query.perPage}`,
          where.params,
        ),
        store.query<{ n: number }>(`SELECT count(*) AS n FROM function_logs ${where.toSql()}`, where.params),
      ]);
      return page(rows.map(renderLog), counted[0]?.n ?? 0, query);
    },

    async runs(orgId, ref, query) {
      const fn = await selectFunction(store, orgId, ref, false);
      const where = new SqlWhere();
      where.add(`org_id = ${where.bind(orgId)}`);
      where.add(`function_id = ${where.bind(fn.id)}`);
      for (const column of ["status", "trigger"] as const) {
        const values = query.filters[column];
        if (values?.length) where.add(`${column} = ANY(${where.bind(values)}::text[])`);
      }
      addTimeBounds(where, query, { created: "created_at" });
      const order = query.sort.descending ? "DESC" : "ASC";
      const [rows, counted] = await Promise.all([
        store.query(
          `SELECT * FROM function_runs ${where.toSql()} ORDER BY created_at ${order}, id ${order}
           LIMIT ${query.perPage} OFFSET ${(query.page - 1) * query.perPage}`,
          where.params,
        ),
        store.query<{ n: number }>(`SELECT count(*) AS n FROM function_runs ${where.toSql()}`, where.params),
      ]);
      return page(rows.map(renderRun), counted[0]?.n ?? 0, query);
    },

    async run(orgId, ref, runId) {
      const fn = await selectFunction(store, orgId, ref, false);
      return renderRun(await selectRun(store, orgId, fn.id, runId));
    },

    async retryRun(orgId, ref, runId) {
      const fn = await selectFunction(store, orgId, ref, false);
      const run = await selectRun(store, orgId, fn.id, runId);
      if (run.status !== "failed") {
        throw new AppError(
          "conflict",
          `Run '${runId}' is ${run.status as string}; only a failed run can be retried`,
        );
      }
      const now = clock.now().toISOString();
      const rows = await store.query(
        `UPDATE function_runs SET status = 'pending', attempts = 0, next_attempt_at = $4::timestamptz,
           updated_at = $4::timestamptz
         WHERE org_id = $1 AND function_id = $2 AND id = $3 AND status = 'failed' RETURNING *`,
        [orgId, fn.id, runId, now],
      );
      if (!rows[0]) throw new AppError("conflict", `Run '${runId}' changed meanwhile; read it again`);
      await store.query(`SELECT pg_notify('${RUNS_CHANNEL}', '')`);
      return renderRun(rows[0]);
    },

    async startRun(orgId, ref, input) {
      const fn = await selectFunction(store, orgId, ref, false);
      const schedules = fn.triggers.flatMap((t) => (t.type === "cron" ? [t.schedule] : []));
      const schedule = input.schedule ?? (schedules.length === 1 ? schedules[0] : undefined);
      const refuse = (code: string, message: string) =>
        new AppError("validation_failed", message, { errors: [{ param: "schedule", code, message }] });
      if (schedules.length === 0) {
        throw refuse("no_cron_trigger", `Function '${fn.name}' has no cron trigger to run`);
      }
      if (schedule === undefined) {
        throw refuse(
          "required",
          `Function '${fn.name}' has ${schedules.length} schedules: name one of ${list(schedules)}`,
        );
      }
      if (!schedules.includes(schedule)) {
        throw refuse(
          "unknown_schedule",
          `Function '${fn.name}' has no schedule '${schedule}': one of ${list(schedules)}`,
        );
      }
      const [run] = await insertCronRuns(store, clock.now(), [{ orgId, functionId: fn.id, schedule }]);
      if (!run) throw new AppError("conflict", `A run of '${schedule}' was started at this very moment`);
      return renderRun(run);
    },
  };
}

const list = (schedules: string[]) => schedules.map((schedule) => `'${schedule}'`).join(", ");

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

const FUNCTION_SELECT = `SELECT f.*, d.entrypoint, d.auth, d.limits, d.triggers, octet_length(d.code) AS bundle_bytes,
    d.created_at AS deployed_at
  FROM functions f JOIN function_deployments d ON d.function_id = f.id AND d.version = f.active_version`;

const DEPLOYMENT_COLUMNS =
  "id, function_id, version, entrypoint, auth, limits, triggers, octet_length(code) AS bundle_bytes, code_sha256, files, warnings, created_at";

async function selectFunction(
  db: Queryable,
  orgId: string,
  ref: string,
  lock: boolean,
): Promise<FunctionObject> {
  const column = ref.startsWith("fn_") ? "id" : "name";
  const rows = await db.query(
    `${FUNCTION_SELECT} WHERE f.org_id = $1 AND f.${column} = $2${lock ? " FOR UPDATE OF f" : ""}`,
    [orgId, ref],
  );
  if (!rows[0]) throw new AppError("not_found", `No such function: '${ref}'`);
  return renderFunction(rows[0]);
}

async function selectRun(db: Queryable, orgId: string, functionId: string, runId: string): Promise<Row> {
  const rows = await db.query(
    "SELECT * FROM function_runs WHERE org_id = $1 AND function_id = $2 AND id = $3",
    [orgId, functionId, runId],
  );
  if (!rows[0]) throw new AppError("not_found", `No such run: '${runId.slice(0, 100)}'`);
  return rows[0];
}

async function selectSecrets(db: Queryable, orgId: string, functionId: string): Promise<SecretInfo[]> {
  const rows = await db.query(
    "SELECT name, updated_at FROM function_secrets WHERE org_id = $1 AND function_id = $2 ORDER BY name",
    [orgId, functionId],
  );
  return rows.map((row) => ({
    object: "function_secret" as const,
    name: row.name as string,
    updated_at: rfc(row.updated_at),
  }));
}

/** The common `created_*` / `updated_*` bounds, on the columns a list has. */
function addTimeBounds(
  where: SqlWhere,
  query: ListQuery,
  columns: { created: string; updated?: string },
): void {
  const bounds: Array<[string | undefined, Date | undefined]> = [
    [`${columns.created} >`, query.createdAfter],
    [`${columns.created} <`, query.createdBefore],
    [columns.updated && `${columns.updated} >`, query.updatedAfter],
    [columns.updated && `${columns.updated} <`, query.updatedBefore],
  ];
  for (const [condition, at] of bounds) {
    if (condition && at) where.add(`${condition} ${where.bind(at.toISOString())}::timestamptz`);
  }
}

function page<T>(data: T[], total: number, query: ListQuery): Page<T> {
  return { data, meta: { total, page: query.page, per_page: query.perPage } };
}

export function renderFunction(row: Row): FunctionObject {
  const auth = row.auth as FunctionAuth;
  const id = row.id as string;
  return {
    ...baseFields(row, "function"),
    object: "function",
    name: row.name as string,
    auth,
    version: row.active_version as number,
    latest_version: row.latest_version as number,
    entrypoint: row.entrypoint as string,
    limits: row.limits as FunctionLimits,
    triggers: row.triggers as Trigger[],
    bundle_bytes: Number(row.bundle_bytes),
    invoke_path: `/v1/functions/${auth === "public" ? id : (row.name as string)}/invoke`,
    deployed_at: rfc(row.deployed_at),
    metadata: row.metadata as Record<string, string>,
  };
}

function renderDeployment(row: Row, activeVersion: number): Deployment {
  return {
    id: row.id as string,
    object: "function_deployment",
    function_id: row.function_id as string,
    version: row.version as number,
    active: row.version === activeVersion,
    entrypoint: row.entrypoint as string,
    auth: row.auth as FunctionAuth,
    limits: row.limits as FunctionLimits,
    triggers: row.triggers as Trigger[],
    bundle_bytes: Number(row.bundle_bytes),
    sha256: row.code_sha256 as string,
    files: row.files as Deployment["files"],
    warnings: row.warnings as string[],
    created_at: rfc(row.created_at),
  };
}

function renderLog(row: Row): FunctionLog {
  return {
    id: row.id as string,
    object: "function_log",
    request_id: row.request_id as string,
    version: row.version as number,
    level: row.level as FunctionLogLevel,
    message: row.message as string,
    // Millisecond precision: lines of one request are often within the same second.
    timestamp: (row.created_at as Date).toISOString(),
  };
}
