import { z } from "zod";
import type { FunctionLimits } from "../core/index.ts";
import { rfc, rfcOrNull } from "../engines/index.ts";
import {
  FunctionLimitsSchema,
  FunctionToolSchema,
  TriggerSchema,
  type FunctionTool,
  type Deployment,
  type FunctionAuth,
  type FunctionLog,
  type FunctionLogLevel,
  type FunctionObject,
  type FunctionRun,
  type RunStatus,
  type SecretInfo,
  type Trigger,
} from "./function-schemas.ts";

/**
 * The function tables' rows as the store returns them, typed once here, and the one
 * mapping from each row to what the API shows. The JSON columns a deploy wrote from
 * validated input (`limits`, `triggers`) are parsed with the same schemas on the way
 * back, so nothing past this file casts a column.
 */

/** A function joined with the deployment it serves (`FUNCTION_SELECT`). */
export interface FunctionRow {
  id: string;
  org_id: string;
  name: string;
  active_version: number;
  latest_version: number;
  secrets_revision: number;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
  entrypoint: string;
  auth: FunctionAuth;
  /** jsonb: `FunctionLimitsSchema` */
  limits: unknown;
  /** jsonb: `Trigger[]` */
  triggers: unknown;
  /** jsonb: `FunctionTool`, or null */
  tool: unknown;
  bundle_bytes: number;
  deployed_at: Date;
}

/** A deployment without its code (`DEPLOYMENT_COLUMNS`). */
export interface DeploymentRow {
  id: string;
  function_id: string;
  version: number;
  entrypoint: string;
  auth: FunctionAuth;
  limits: unknown;
  triggers: unknown;
  tool: unknown;
  bundle_bytes: number;
  code_sha256: string;
  files: Deployment["files"];
  warnings: string[];
  created_at: Date;
}

export interface LogRow {
  id: string;
  request_id: string;
  version: number;
  level: FunctionLogLevel;
  message: string;
  created_at: Date;
}

export interface RunRow {
  id: string;
  org_id: string;
  function_id: string;
  trigger: FunctionRun["trigger"];
  event_id: string | null;
  event_type: string | null;
  schedule: string | null;
  scheduled_for: Date | null;
  status: RunStatus;
  attempts: number;
  max_attempts: number;
  next_attempt_at: Date | null;
  locked_until: Date | null;
  locked_by: string | null;
  version: number | null;
  request_id: string | null;
  last_status_code: number | null;
  last_error: string | null;
  duration_ms: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface SecretRow {
  name: string;
  updated_at: Date;
}

const TriggersSchema = z.array(TriggerSchema);

/** A `limits` column: the three numbers a deploy resolved. */
export function parseLimits(column: unknown): FunctionLimits {
  return FunctionLimitsSchema.parse(column);
}

/** A `tool` column: the tool a deploy checked, or null. */
export function parseTool(column: unknown): FunctionTool | null {
  return column === null || column === undefined ? null : FunctionToolSchema.parse(column);
}

/** A `triggers` column: the triggers a deploy checked. */
export function parseTriggers(column: unknown): Trigger[] {
  return TriggersSchema.parse(column);
}

export function renderFunction(row: FunctionRow): FunctionObject {
  // Anonymous callers reach a public function by its id only (names are unique per organization).
  const invokeRef = row.auth === "public" ? row.id : row.name;
  return {
    id: row.id,
    object: "function",
    created_at: rfc(row.created_at),
    updated_at: rfc(row.updated_at),
    name: row.name,
    auth: row.auth,
    version: row.active_version,
    latest_version: row.latest_version,
    entrypoint: row.entrypoint,
    limits: parseLimits(row.limits),
    triggers: parseTriggers(row.triggers),
    tool: parseTool(row.tool),
    bundle_bytes: Number(row.bundle_bytes),
    invoke_path: `/v1/functions/${invokeRef}/invoke`,
    deployed_at: rfc(row.deployed_at),
    metadata: row.metadata,
  };
}

export function renderDeployment(row: DeploymentRow, activeVersion: number): Deployment {
  return {
    id: row.id,
    object: "function_deployment",
    function_id: row.function_id,
    version: row.version,
    active: row.version === activeVersion,
    entrypoint: row.entrypoint,
    auth: row.auth,
    limits: parseLimits(row.limits),
    triggers: parseTriggers(row.triggers),
    tool: parseTool(row.tool),
    bundle_bytes: Number(row.bundle_bytes),
    sha256: row.code_sha256,
    files: row.files,
    warnings: row.warnings,
    created_at: rfc(row.created_at),
  };
}

export function renderLog(row: LogRow): FunctionLog {
  return {
    id: row.id,
    object: "function_log",
    request_id: row.request_id,
    version: row.version,
    level: row.level,
    message: row.message,
    // Millisecond precision: lines of one request are often within the same second.
    timestamp: row.created_at.toISOString(),
  };
}

export function renderRun(row: RunRow): FunctionRun {
  return {
    id: row.id,
    object: "function_run",
    function_id: row.function_id,
    trigger: row.trigger,
    event_id: row.event_id ?? null,
    event_type: row.event_type ?? null,
    schedule: row.schedule ?? null,
    scheduled_for: rfcOrNull(row.scheduled_for),
    status: row.status,
    attempts: row.attempts,
    max_attempts: row.max_attempts,
    next_attempt_at: rfcOrNull(row.next_attempt_at),
    version: row.version ?? null,
    request_id: row.request_id ?? null,
    last_status_code: row.last_status_code ?? null,
    last_error: row.last_error ?? null,
    duration_ms: row.duration_ms ?? null,
    created_at: rfc(row.created_at),
    updated_at: rfc(row.updated_at),
  };
}

export function renderSecret(row: SecretRow): SecretInfo {
  return { object: "function_secret", name: row.name, updated_at: rfc(row.updated_at) };
}
