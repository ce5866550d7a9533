import type { z } from "zod";
import type { Store } from "../../store/index.ts";
import type { AnyResourceService } from "../../engines/resource.ts";
import type { KeyPrincipal } from "../../engines/tenancy/api-keys.ts";
import type { ScopeName } from "../../engines/tenancy/scopes.ts";

/** A record an answer used or an action changed, so a client can link to it. */
export interface Source {
  object: string;
  id: string;
}

/** What a tool runs with: the caller's organization and scopes, the request's time, the engines. */
export interface ToolContext {
  orgId: string;
  /** The caller's scopes: every tool call is checked against them. */
  scopes: readonly string[];
  now: Date;
  /** `YYYY-MM-DD` of `now` in UTC. */
  today: string;
  store: Store;
  services: Map<string, AnyResourceService>;
  /** The caller's credential, for a function tool that runs as the caller. */
  principal?: KeyPrincipal;
}

/** A read tool's answer: JSON for the planner (and the model), and the records it read. */
export interface ToolOutput<R = unknown> {
  result: R;
  sources: Source[];
}

/** What an approved write changed: the created or changed object, as the REST API renders it. */
export interface AppliedChange {
  object: { object: string; id: string } & Record<string, unknown>;
}

/** A write, checked and described before anyone approves it. */
export interface PreparedChange<A> {
  /** The arguments as they will run: names resolved to ids, defaults filled in. */
  arguments: A;
  /** In words, what would change: "Mark INV-000030 (Kestrel Robotics, 300.00 EUR) as paid". */
  preview: string;
  sources: Source[];
}

interface ToolBase<A> {
  /** snake_case, as a model calls it. */
  name: string;
  /** One or two sentences for the model and for README's catalog. */
  description: string;
  /** Every scope family the tool may read or write: a caller with none of them never sees it. */
  scopes: readonly ScopeName[];
  /**
   * The family this call reads or writes (`list_records` of invoices: finance), checked per call;
   * null for a tool that reads only what the caller's scopes allow by itself (`search`).
   */
  scopeOf(args: A): ScopeName | null;
  parameters: z.ZodType<A>;
  /** The JSON Schema a model sees, when it is declared rather than made from `parameters` (function tools). */
  jsonSchema?: Record<string, unknown>;
}

export interface ReadTool<A = unknown, R = unknown> extends ToolBase<A> {
  access: "read";
  run(ctx: ToolContext, args: A): Promise<ToolOutput<R>>;
}

export interface WriteTool<A = unknown> extends ToolBase<A> {
  access: "write";
  /** Checks the change can be made now and describes it; changes nothing. Throws an AppError to refuse. */
  prepare(ctx: ToolContext, args: A): Promise<PreparedChange<A>>;
  /** Makes the change through the engine services (events and all), at approval. */
  apply(ctx: ToolContext, args: A): Promise<AppliedChange>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a heterogeneous catalog
export type Tool = ReadTool<any, any> | WriteTool<any>;
