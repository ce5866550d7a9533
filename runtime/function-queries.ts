import { AppError, newId } from "../core/index.ts";
import {
  addTimeBounds,
  likePattern,
  selectPage,
  SqlWhere,
  type ListQuery,
  type Page,
} from "../engines/index.ts";
import { DEPLOYMENT_LIST, FUNCTION_LIST } from "./function-schemas.ts";
import type { Queryable } from "../store/index.ts";
import {
  parseTool,
  parseTriggers,
  renderDeployment,
  renderFunction,
  renderSecret,
  type DeploymentRow,
  type FunctionRow,
} from "./function-rows.ts";
import type {
  Deployment,
  FunctionAuth,
  FunctionObject,
  FunctionTool,
  SecretInfo,
  Trigger,
} from "./function-schemas.ts";

/**
 * The SQL of functions, their deployments and their secrets, one named function per
 * query (as webhooks/delivery-queries.ts). Every query is scoped by `org_id`; values are
 * bound. The service (runtime/functions.ts) decides; these only read and write.
 */

/** A function and the deployment it serves: a `FunctionRow`. */
const FUNCTION_COLUMNS = `f.*, d.entrypoint, d.auth, d.limits, d.triggers, d.tool, octet_length(d.code) AS bundle_bytes,
    d.created_at AS deployed_at`;
const FUNCTION_FROM = `functions f
  JOIN function_deployments d ON d.function_id = f.id AND d.version = f.active_version`;

const DEPLOYMENT_COLUMNS =
  "id, function_id, version, entrypoint, auth, limits, triggers, tool, octet_length(code) AS bundle_bytes, code_sha256, files, warnings, created_at";

/** The function `ref` names (its name, or its id `fn_…`) with its serving deployment; `lock` takes the row. */
export async function findFunction(
  db: Queryable,
  orgId: string,
  ref: string,
  lock = false,
): Promise<FunctionRow | undefined> {
  const column = ref.startsWith("fn_") ? "id" : "name";
  const [row] = await db.query<FunctionRow>(
    `SELECT ${FUNCTION_COLUMNS} FROM ${FUNCTION_FROM} WHERE f.org_id = $1 AND f.${column} = $2${lock ? " FOR UPDATE OF f" : ""}`,
    [orgId, ref],
  );
  return row;
}

/** As `findFunction`, rendered; a 404 when there is none. */
export async function requireFunction(
  db: Queryable,
  orgId: string,
  ref: string,
  lock = false,
): Promise<FunctionObject> {
  const row = await findFunction(db, orgId, ref, lock);
  if (!row) throw new AppError("not_found", `No such function: '${ref}'`);
  return renderFunction(row);
}

export function selectFunctionPage(
  db: Queryable,
  orgId: string,
  query: ListQuery,
): Promise<Page<FunctionObject>> {
  const where = new SqlWhere();
  where.add(`f.org_id = ${where.bind(orgId)}`);
  if (query.q) where.add(`f.name ILIKE ${where.bind(likePattern(query.q))}`);
  addTimeBounds(where, query, { created: "f.created_at", updated: "f.updated_at" });
  const column = FUNCTION_LIST.sorts[query.sort.field as keyof typeof FUNCTION_LIST.sorts] ?? "created_at";
  const order = query.sort.descending ? "DESC" : "ASC";
  const select = {
    columns: FUNCTION_COLUMNS,
    from: FUNCTION_FROM,
    // Every function has its serving deployment: the count needs no join.
    countFrom: "functions f",
    where,
    orderBy: `f.${column} ${order}, f.id ${order}`,
  };
  return selectPage(db, select, query, renderFunction);
}

/**
 * Makes the function, or gives it its next version: both versions point at the new one.
 * Returns its id and that version.
 */
export async function upsertFunction(
  tx: Queryable,
  input: { orgId: string; name: string; metadata: Record<string, string>; now: Date },
): Promise<{ id: string; version: number }> {
  const [row] = await tx.query<{ id: string; active_version: number }>(
    `INSERT INTO functions (id, org_id, name, active_version, latest_version, metadata, created_at, updated_at)
     VALUES ($1, $2, $3, 1, 1, $4::jsonb, $5::timestamptz, $5::timestamptz)
     ON CONFLICT (org_id, name) DO UPDATE SET latest_version = functions.latest_version + 1,
       active_version = functions.latest_version + 1, metadata = $4::jsonb, updated_at = $5::timestamptz
     RETURNING id, active_version`,
    [newId("fn"), input.orgId, input.name, input.metadata, input.now.toISOString()],
  );
  return { id: row!.id, version: row!.active_version };
}

export interface NewDeployment {
  orgId: string;
  functionId: string;
  version: number;
  entrypoint: string;
  auth: FunctionAuth;
  limits: unknown;
  code: string;
  codeSha256: string;
  files: Deployment["files"];
  warnings: string[];
  triggers: readonly Trigger[];
  tool: FunctionTool | null;
  deployedBy: string | null;
  now: Date;
}

/** Writes a deployment; returns its id (`fdep_…`). */
export async function insertDeployment(tx: Queryable, d: NewDeployment): Promise<string> {
  const id = newId("fdep");
  await tx.query(
    `INSERT INTO function_deployments (id, org_id, function_id, version, entrypoint, auth, limits, code,
       code_sha256, files, warnings, created_at, triggers, deployed_by, tool)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10::jsonb, $11::jsonb, $12::timestamptz,
       $13::jsonb, $14, $15::jsonb)`,
    [
      id,
      d.orgId,
      d.functionId,
      d.version,
      d.entrypoint,
      d.auth,
      d.limits,
      d.code,
      d.codeSha256,
      d.files,
      d.warnings,
      d.now.toISOString(),
      d.triggers,
      d.deployedBy,
      d.tool,
    ],
  );
  return id;
}

/** Rows per INSERT of a deployment's files: well under the 65,535 bound parameters of one statement. */
const FILES_PER_INSERT = 500;

/** Keeps a deployment's files (`Deno.readFile`), a few hundred rows per statement. */
export async function insertDeploymentFiles(
  tx: Queryable,
  orgId: string,
  deploymentId: string,
  files: ReadonlyArray<{ path: string; content: Uint8Array }>,
): Promise<void> {
  for (let start = 0; start < files.length; start += FILES_PER_INSERT) {
    const chunk = files.slice(start, start + FILES_PER_INSERT);
    const values = chunk.map((_, i) => `($1, $2, $${3 + i * 2}, $${4 + i * 2}::bytea)`).join(", ");
    await tx.query(`INSERT INTO function_files (org_id, deployment_id, path, content) VALUES ${values}`, [
      orgId,
      deploymentId,
      ...chunk.flatMap((file) => [file.path, file.content]),
    ]);
  }
}

/** The organization's functions whose serving deployment offers a tool to SYNC, by name. */
export async function selectFunctionTools(
  db: Queryable,
  orgId: string,
): Promise<Array<{ name: string; tool: FunctionTool }>> {
  const rows = await db.query<{ name: string; tool: unknown }>(
    `SELECT f.name, d.tool FROM ${FUNCTION_FROM} WHERE f.org_id = $1 AND d.tool IS NOT NULL ORDER BY f.name`,
    [orgId],
  );
  return rows.map((row) => ({ name: row.name, tool: parseTool(row.tool)! }));
}

/** Deletes the function; its deployments, secrets, logs and runs go with it (cascade). */
export async function deleteFunction(tx: Queryable, orgId: string, functionId: string): Promise<void> {
  await tx.query("DELETE FROM functions WHERE org_id = $1 AND id = $2", [orgId, functionId]);
}

export function selectDeploymentPage(
  db: Queryable,
  orgId: string,
  fn: Pick<FunctionObject, "id" | "version">,
  query: ListQuery,
): Promise<Page<Deployment>> {
  const where = new SqlWhere();
  where.add(`org_id = ${where.bind(orgId)}`);
  where.add(`function_id = ${where.bind(fn.id)}`);
  const sorts = DEPLOYMENT_LIST.sorts;
  const column = sorts[query.sort.field as keyof typeof sorts] ?? "version";
  const order = query.sort.descending ? "DESC" : "ASC";
  const select = {
    columns: DEPLOYMENT_COLUMNS,
    from: "function_deployments",
    where,
    orderBy: `${column} ${order}, version ${order}`,
  };
  return selectPage(db, select, query, (row: DeploymentRow) => renderDeployment(row, fn.version));
}

export async function findDeployment(
  db: Queryable,
  orgId: string,
  functionId: string,
  version: number,
): Promise<DeploymentRow | undefined> {
  const [row] = await db.query<DeploymentRow>(
    `SELECT ${DEPLOYMENT_COLUMNS} FROM function_deployments
     WHERE org_id = $1 AND function_id = $2 AND version = $3`,
    [orgId, functionId, version],
  );
  return row;
}

/** The newest version before `version`, if any (what a rollback without a version goes back to). */
export async function versionBefore(
  db: Queryable,
  orgId: string,
  functionId: string,
  version: number,
): Promise<number | undefined> {
  const [row] = await db.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM function_deployments
     WHERE org_id = $1 AND function_id = $2 AND version < $3`,
    [orgId, functionId, version],
  );
  return row?.version ?? undefined;
}

/** The triggers of one deployment, or undefined when there is no such version. */
export async function deploymentTriggers(
  db: Queryable,
  orgId: string,
  functionId: string,
  version: number,
): Promise<Trigger[] | undefined> {
  const [row] = await db.query<{ triggers: unknown }>(
    "SELECT triggers FROM function_deployments WHERE org_id = $1 AND function_id = $2 AND version = $3",
    [orgId, functionId, version],
  );
  return row ? parseTriggers(row.triggers) : undefined;
}

/** Serves `version` from now on. */
export async function activateVersion(
  tx: Queryable,
  orgId: string,
  functionId: string,
  version: number,
  now: Date,
): Promise<void> {
  await tx.query(
    "UPDATE functions SET active_version = $3, updated_at = $4::timestamptz WHERE org_id = $1 AND id = $2",
    [orgId, functionId, version, now.toISOString()],
  );
}

/** The names of the function's secrets (never their values), by name. */
export async function selectSecrets(db: Queryable, orgId: string, functionId: string): Promise<SecretInfo[]> {
  const rows = await db.query<{ name: string; updated_at: Date }>(
    "SELECT name, updated_at FROM function_secrets WHERE org_id = $1 AND function_id = $2 ORDER BY name",
    [orgId, functionId],
  );
  return rows.map(renderSecret);
}

/** The sealed values, for the isolate's `Deno.env` (opened by the invoker). */
export function selectSealedSecrets(
  db: Queryable,
  orgId: string,
  functionId: string,
): Promise<Array<{ name: string; value: string }>> {
  return db.query("SELECT name, value FROM function_secrets WHERE org_id = $1 AND function_id = $2", [
    orgId,
    functionId,
  ]);
}

export async function upsertSecret(
  tx: Queryable,
  secret: { orgId: string; functionId: string; name: string; sealed: string; now: Date },
): Promise<void> {
  await tx.query(
    `INSERT INTO function_secrets (org_id, function_id, name, value, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5::timestamptz, $5::timestamptz)
     ON CONFLICT (function_id, name) DO UPDATE SET value = $4, updated_at = $5::timestamptz`,
    [secret.orgId, secret.functionId, secret.name, secret.sealed, secret.now.toISOString()],
  );
}

/** Deletes one secret; whether there was one. */
export async function deleteSecret(
  tx: Queryable,
  orgId: string,
  functionId: string,
  name: string,
): Promise<boolean> {
  const rows = await tx.query(
    "DELETE FROM function_secrets WHERE org_id = $1 AND function_id = $2 AND name = $3 RETURNING name",
    [orgId, functionId, name],
  );
  return rows.length > 0;
}

/** A new secrets revision: every node boots a fresh isolate with the new env. */
export async function bumpSecretsRevision(
  tx: Queryable,
  orgId: string,
  functionId: string,
  now: Date,
): Promise<void> {
  await tx.query(
    "UPDATE functions SET secrets_revision = secrets_revision + 1, updated_at = $3::timestamptz WHERE org_id = $1 AND id = $2",
    [orgId, functionId, now.toISOString()],
  );
}
