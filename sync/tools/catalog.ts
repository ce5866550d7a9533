import { z } from "zod";
import { AppError } from "../../core/index.ts";
import { hasScope } from "../../engines/tenancy/scopes.ts";
import {
  candidatesByStatus,
  invoicesDue,
  latestSnapshotTool,
  pipelineByStage,
  skillsVerified,
  topClients,
} from "./insights.ts";
import { getRecord, search } from "./lookup.ts";
import { queryRecords } from "./query.ts";
import { countRecords, listRecords, sumAmounts } from "./records.ts";
import type { ReadTool, Tool, ToolContext, ToolOutput, WriteTool } from "./types.ts";
import {
  createRecord,
  markInvoicePaid,
  moveDeal,
  recordPayment,
  setCandidateStatus,
  updateRecord,
  verifySkill,
  voidInvoice,
} from "./writes.ts";

/** SYNC's own tools, read ones first: what both planners may call (docs/sync.md, "The tools"). */
export const SYNC_TOOLS: readonly Tool[] = [
  search,
  listRecords,
  countRecords,
  sumAmounts,
  queryRecords,
  getRecord,
  invoicesDue,
  latestSnapshotTool,
  topClients,
  pipelineByStage,
  candidatesByStatus,
  skillsVerified,
  createRecord,
  updateRecord,
  markInvoicePaid,
  voidInvoice,
  recordPayment,
  moveDeal,
  setCandidateStatus,
  verifySkill,
] as Tool[];

/** The tools of one request: SYNC's own plus the organization's function tools, by name. */
export interface ToolCatalog {
  readonly tools: readonly Tool[];
  get(name: string): Tool | undefined;
}

export function createToolCatalog(extra: readonly Tool[] = []): ToolCatalog {
  const tools = [...SYNC_TOOLS, ...extra];
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return { tools, get: (name) => byName.get(name) };
}

/** Whether a caller with `scopes` may use `tool` at all: a write needs write access somewhere it writes. */
export function toolAllowed(tool: Tool, scopes: readonly string[]): boolean {
  return tool.scopes.some((scope) => hasScope(scopes, scope, tool.access));
}

/** A tool's parameters as JSON Schema, for a model's `tools` (and the README's catalog). */
export function toolJsonSchema(tool: Tool): Record<string, unknown> {
  if (tool.jsonSchema) return tool.jsonSchema;
  const { $schema: _, ...schema } = z.toJSONSchema(tool.parameters, {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return schema;
}

/** Arguments checked against the tool's schema; the error names each wrong field for a model to fix. */
export function parseToolArgs<A>(tool: Tool, args: unknown): A {
  const parsed = (tool.parameters as z.ZodType<A>).safeParse(args ?? {});
  if (!parsed.success) {
    const detail = parsed.error.issues.map(
      (issue) => `${issue.path.join(".") || "arguments"}: ${issue.message}`,
    );
    throw new AppError("validation_failed", `${tool.name}: ${detail.join("; ")}`);
  }
  return parsed.data;
}

/** The scope check of one call: the caller's own scopes, for the family this call touches. */
export function assertToolScope(tool: Tool, args: unknown, ctx: ToolContext): void {
  const family = tool.scopeOf(args);
  if (family && !hasScope(ctx.scopes, family, tool.access)) {
    throw new AppError(
      "insufficient_scope",
      `this credential cannot ${tool.access} ${family} data (it needs ${family}:${tool.access})`,
    );
  }
}

/** Runs a read tool for a planner: arguments validated, scope checked. */
export async function runReadTool(tool: Tool, rawArgs: unknown, ctx: ToolContext): Promise<ToolOutput> {
  if (tool.access !== "read") throw new AppError("validation_failed", `${tool.name} is a write: propose it`);
  const args = parseToolArgs(tool, rawArgs);
  assertToolScope(tool, args, ctx);
  return (tool as ReadTool).run(ctx, args);
}

/** Checks and describes a write for a planner's proposal; nothing changes. */
export async function prepareWriteTool(tool: Tool, rawArgs: unknown, ctx: ToolContext) {
  if (tool.access !== "write") throw new AppError("validation_failed", `${tool.name} is a read: call it`);
  const args = parseToolArgs(tool, rawArgs);
  assertToolScope(tool, args, ctx);
  return (tool as WriteTool).prepare(ctx, args);
}
