import { z } from "zod";
import { AppError, isoDate } from "../../core/index.ts";
import { hasScope } from "../../engines/tenancy/scopes.ts";
import { latestSnapshot } from "../../engines/intelligence/snapshots.ts";
import type { IntelligenceSnapshot } from "../../engines/intelligence/schema.ts";
import {
  countRecords,
  listRecords,
  sourcesOf,
  sumAmounts,
  type ListResult,
  type SumResult,
} from "./records.ts";
import type { ReadTool, ToolContext } from "./types.ts";

/**
 * The questions an owner asks most, as named tools over the generic ones (records.ts): what is
 * overdue or falls due soon, the latest snapshot, the best clients, the pipeline, the hiring
 * funnel, skills verified lately. Each is exactly what the REST API's lists and sums would say.
 */

const InvoicesDueArgs = z
  .object({
    overdue: z
      .boolean()
      .optional()
      .meta({ description: "Only invoices already overdue (default when no days given)" }),
    within_days: z
      .number()
      .int()
      .min(0)
      .max(366)
      .optional()
      .meta({ description: "Open invoices due within this many days from today" }),
    currency: z.string().length(3).optional(),
    limit: z.number().int().min(1).max(50).optional(),
  })
  .strict();
type InvoicesDueArgs = z.infer<typeof InvoicesDueArgs>;

export interface InvoicesDueResult {
  kind: "overdue" | "due_soon";
  /** Through this day (due soon), YYYY-MM-DD. */
  until?: string;
  total: number;
  records: ListResult["records"];
  /** Still owed, per currency. */
  outstanding: SumResult["totals"];
}

export const invoicesDue = {
  name: "invoices_due",
  description:
    "Overdue invoices, or open invoices falling due within N days: the invoices, how many, and what is still owed per currency.",
  access: "read",
  scopes: ["finance"],
  scopeOf: () => "finance",
  parameters: InvoicesDueArgs,
  async run(ctx: ToolContext, args: InvoicesDueArgs) {
    const dueSoon = args.within_days !== undefined && !args.overdue;
    const until = dueSoon ? isoDate(new Date(ctx.now.getTime() + args.within_days! * 86_400_000)) : undefined;
    const filters: Record<string, string> = dueSoon
      ? { status: "open", due_before: isoDate(new Date(Date.parse(`${until}T00:00:00Z`) + 86_400_000)) }
      : { status: "overdue" };
    if (args.currency) filters.currency = args.currency.toUpperCase();
    const list = await listRecords.run(ctx, {
      resource: "invoices",
      filters,
      sort: "due_date",
      limit: args.limit ?? 25,
    });
    const sums = await sumAmounts.run(ctx, { resource: "invoices", filters, field: "outstanding" });
    const result: InvoicesDueResult = {
      kind: dueSoon ? "due_soon" : "overdue",
      ...(until ? { until } : {}),
      total: list.result.total,
      records: list.result.records,
      outstanding: sums.result.totals,
    };
    return { result, sources: list.sources };
  },
} satisfies ReadTool<InvoicesDueArgs, InvoicesDueResult>;

const NoArgs = z.object({}).strict();
const ENGINES_OF_SNAPSHOT = ["finance", "growth", "talent"] as const;
type NoArgs = z.infer<typeof NoArgs>;

export const latestSnapshotTool = {
  name: "latest_snapshot",
  description:
    "The organization's latest intelligence snapshot: outstanding and overdue per currency, cash collected, DSO, pipeline, hiring and skills figures.",
  access: "read",
  scopes: ["finance", "growth", "talent"],
  // A snapshot holds all three engines' figures: like the REST API, it takes the three reads.
  scopeOf: () => null,
  parameters: NoArgs,
  async run(ctx: ToolContext) {
    const missing = ENGINES_OF_SNAPSHOT.filter((engine) => !hasScope(ctx.scopes, engine, "read"));
    if (missing.length > 0) {
      throw new AppError(
        "insufficient_scope",
        `the snapshot needs ${missing.map((e) => `${e}:read`).join(", ")}`,
      );
    }
    const snapshot = await latestSnapshot(ctx.store, ctx.orgId);
    return {
      result: { snapshot },
      sources: snapshot ? [{ object: "intelligence_snapshot", id: snapshot.id }] : [],
    };
  },
} satisfies ReadTool<NoArgs, { snapshot: IntelligenceSnapshot | null }>;

const TopClientsArgs = z
  .object({
    limit: z.number().int().min(1).max(25).optional(),
    since: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .optional()
      .meta({ description: "Invoices issued on or after, YYYY-MM-DD" }),
    until: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .optional()
      .meta({ description: "Invoices issued before, YYYY-MM-DD" }),
  })
  .strict();
type TopClientsArgs = z.infer<typeof TopClientsArgs>;

export interface TopClientsResult {
  /** By revenue: what clients paid (amount_paid) on their non-void invoices, per currency, largest first. */
  clients: Array<{ client: string; currency: string; revenue: string; invoices: number }>;
}

export const topClients = {
  name: "top_clients",
  description:
    "Clients ranked by revenue (what they paid on their invoices), per currency, optionally within dates.",
  access: "read",
  scopes: ["finance"],
  scopeOf: () => "finance",
  parameters: TopClientsArgs,
  async run(ctx: ToolContext, args: TopClientsArgs) {
    const params: unknown[] = [ctx.orgId];
    let where = "org_id = $1 AND status <> 'void'";
    // The window is on the date an invoice was issued, as the arguments say (drafts have none).
    if (args.since) where += ` AND issued_at >= $${params.push(args.since)}::date`;
    if (args.until) where += ` AND issued_at < $${params.push(args.until)}::date`;
    const rows = await ctx.store.query<{ client: string; currency: string; revenue: string; n: number }>(
      `SELECT client, currency, sum(amount_paid)::text AS revenue, count(*)::int AS n FROM invoices WHERE ${where} ` +
        `GROUP BY client, currency HAVING sum(amount_paid) > 0 ORDER BY sum(amount_paid) DESC, client LIMIT $${params.push(args.limit ?? 5)}`,
      params,
    );
    const clients = rows.map((row) => ({
      client: row.client,
      currency: String(row.currency).trim(),
      revenue: row.revenue,
      invoices: Number(row.n),
    }));
    return { result: { clients }, sources: [] };
  },
} satisfies ReadTool<TopClientsArgs, TopClientsResult>;

export const pipelineByStage = {
  name: "pipeline_by_stage",
  description: "Deals per stage with their value per currency (the sales pipeline).",
  access: "read",
  scopes: ["growth"],
  scopeOf: () => "growth",
  parameters: NoArgs,
  async run(ctx: ToolContext) {
    const sums = await sumAmounts.run(ctx, { resource: "deals", group_by: "stage" });
    return { result: { stages: sums.result.totals }, sources: [] };
  },
} satisfies ReadTool<NoArgs, { stages: SumResult["totals"] }>;

export const candidatesByStatus = {
  name: "candidates_by_status",
  description: "How many candidates are in each status of the hiring pipeline.",
  access: "read",
  scopes: ["talent"],
  scopeOf: () => "talent",
  parameters: NoArgs,
  async run(ctx: ToolContext) {
    const counts = await countRecords.run(ctx, { resource: "candidates", group_by: "status" });
    return { result: { total: counts.result.total, statuses: counts.result.groups ?? [] }, sources: [] };
  },
} satisfies ReadTool<NoArgs, { total: number; statuses: Array<{ key: string | null; count: number }> }>;

const SkillsVerifiedArgs = z
  .object({
    days: z
      .number()
      .int()
      .min(1)
      .max(3650)
      .optional()
      .meta({ description: "Within this many days (default 30)" }),
    name: z.string().max(100).optional().meta({ description: "Only this skill, e.g. TypeScript" }),
    limit: z.number().int().min(1).max(50).optional(),
  })
  .strict();
type SkillsVerifiedArgs = z.infer<typeof SkillsVerifiedArgs>;

export const skillsVerified = {
  name: "skills_verified",
  description: "Skills verified in the last N days (default 30), newest first, with how many.",
  access: "read",
  scopes: ["talent"],
  scopeOf: () => "talent",
  parameters: SkillsVerifiedArgs,
  async run(ctx: ToolContext, args: SkillsVerifiedArgs) {
    const since = new Date(ctx.now.getTime() - (args.days ?? 30) * 86_400_000).toISOString();
    const list = await listRecords.run(ctx, {
      resource: "skills",
      filters: { status: "verified", verified_after: since },
      ...(args.name ? { q: args.name } : {}),
      sort: "-verified_at",
      limit: args.limit ?? 25,
    });
    return {
      result: { since, total: list.result.total, skills: list.result.records },
      sources: sourcesOf(list.result.records),
    };
  },
} satisfies ReadTool<SkillsVerifiedArgs, { since: string; total: number; skills: ListResult["records"] }>;
