import type { Plan } from "../core/index.ts";
import type { Queryable } from "../store/index.ts";
import type { FunctionAuth } from "./function-schemas.ts";

/**
 * What the invoker reads and writes, one named function per query: the deployment a
 * request is served by, its program (code and V8 code cache), and the cache a first boot
 * produced. Its secrets come from runtime/function-queries.ts, its console lines go
 * through runtime/log-queries.ts.
 */

/** A function's serving deployment with its organization's plan. */
export interface ServingRow {
  id: string;
  org_id: string;
  plan: Plan;
  name: string;
  active_version: number;
  secrets_revision: number;
  auth: FunctionAuth;
  /** jsonb: `FunctionLimitsSchema` */
  limits: unknown;
}

/**
 * The serving deployment of the function `ref` names: in `orgId` by name or id, or, with
 * no organization (an anonymous caller), by id in any organization.
 */
export async function findServing(
  db: Queryable,
  orgId: string | undefined,
  ref: string,
): Promise<ServingRow | undefined> {
  const column = ref.startsWith("fn_") ? "id" : "name";
  const [row] = await db.query<ServingRow>(
    `SELECT f.id, f.org_id, o.plan, f.name, f.active_version, f.secrets_revision, d.auth, d.limits
     FROM functions f JOIN function_deployments d ON d.function_id = f.id AND d.version = f.active_version
     JOIN organizations o ON o.id = f.org_id
     WHERE ${orgId ? "f.org_id = $2 AND " : ""}f.${column} = $1`,
    orgId ? [ref, orgId] : [ref],
  );
  return row;
}

export interface ProgramRow {
  code: string;
  /** base64 */
  cached_data: string | null;
  cached_data_tag: string | null;
  /** When it was deployed: its files' modification time (`Deno.stat`). */
  created_at: Date;
}

/** One deployment's bundle and the V8 code cache saved with it. */
export async function selectProgram(
  db: Queryable,
  orgId: string,
  functionId: string,
  version: number,
): Promise<ProgramRow | undefined> {
  const [row] = await db.query<ProgramRow>(
    `SELECT code, cached_data, cached_data_tag, created_at FROM function_deployments
     WHERE org_id = $1 AND function_id = $2 AND version = $3`,
    [orgId, functionId, version],
  );
  return row;
}

/** The files kept with one deployment, for `Deno.readFile` in its isolate (migration 0020). */
export function selectDeploymentFiles(
  db: Queryable,
  orgId: string,
  functionId: string,
  version: number,
): Promise<Array<{ path: string; content: Uint8Array }>> {
  return db.query(
    `SELECT ff.path, ff.content FROM function_files ff
     JOIN function_deployments d ON d.id = ff.deployment_id AND d.org_id = ff.org_id
     WHERE ff.org_id = $1 AND d.org_id = $1 AND d.function_id = $2 AND d.version = $3`,
    [orgId, functionId, version],
  );
}

/** Keeps a V8 code cache with its deployment, unless one for the same V8 build is kept already. */
export async function saveCachedData(
  db: Queryable,
  key: { orgId: string; functionId: string; version: number },
  data: { base64: string; tag: string },
): Promise<void> {
  await db.query(
    `UPDATE function_deployments SET cached_data = $4, cached_data_tag = $5
     WHERE org_id = $1 AND function_id = $2 AND version = $3
       AND (cached_data IS NULL OR cached_data_tag IS DISTINCT FROM $5)`,
    [key.orgId, key.functionId, key.version, data.base64, data.tag],
  );
}
