import { z } from "zod";
import { AppError } from "../../core/index.ts";
import type { Row } from "../../store/index.ts";
import { buildWhere } from "../../engines/resource.ts";
import {
  definitionOf,
  FiltersSchema,
  listQueryOf,
  RESOURCE_NAMES,
  ResourceNameSchema,
  serviceOf,
  type ResourceName,
} from "./resources.ts";
import type { ReadTool, Source, ToolContext } from "./types.ts";

/**
 * The generic read tools, over every resource of every engine: search, list with filters, count
 * and sum with a group-by, and one record by id, number or name. Each runs through the resource's
 * own definition (its filters, its organization scope), so SYNC reads exactly what the REST API
 * would show the same caller.
 */

const ENGINE_OF: Record<ResourceName, "finance" | "growth" | "talent"> = {
  invoices: "finance",
  products: "finance",
  payments: "finance",
  contacts: "growth",
  deals: "growth",
  communications: "growth",
  candidates: "talent",
  skills: "talent",
};

export function engineOf(resource: ResourceName): "finance" | "growth" | "talent" {
  return ENGINE_OF[resource];
}

/** A tool over any resource reads the engine of the resource it is asked about. */
export const perResource = {
  scopes: ["finance", "growth", "talent"] as const,
  scopeOf: (args: { resource: ResourceName }) => engineOf(args.resource),
};

export const sourcesOf = (records: Array<{ object?: unknown; id?: unknown }>): Source[] =>
  records.map((record) => ({ object: String(record.object), id: String(record.id) }));

const ListArgs = z
  .object({
    resource: ResourceNameSchema,
    filters: FiltersSchema.optional(),
    q: z.string().max(200).optional().meta({ description: "Case-insensitive text search" }),
    sort: z.string().max(40).optional().meta({ description: "A sort field, '-' first for descending" }),
    limit: z.number().int().min(1).max(50).optional().meta({ description: "How many records (default 10)" }),
  })
  .strict();
type ListArgs = z.infer<typeof ListArgs>;

export interface ListResult {
  resource: ResourceName;
  total: number;
  records: Array<Record<string, unknown>>;
}

export const listRecords = {
  name: "list_records",
  description:
    "List records of one resource with the REST API's filters, text search and sort; returns the total too.",
  access: "read",
  ...perResource,
  parameters: ListArgs,
  async run(ctx: ToolContext, args: ListArgs) {
    const page = await serviceOf(ctx, args.resource).list(ctx.orgId, listQueryOf(ctx, args.resource, args));
    const records = page.data;
    return {
      result: { resource: args.resource, total: page.meta.total, records },
      sources: sourcesOf(records),
    };
  },
} satisfies ReadTool<ListArgs, ListResult>;

/** Group-by keys per resource: API field name → SQL expression on its table. */
const MONTH = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM')`;
const GROUPS: Record<ResourceName, Record<string, string>> = {
  invoices: {
    // The status a caller sees: open past its due date is overdue (engines/finance/invoices.ts).
    status: "CASE WHEN status = 'open' AND due_date < $TODAY::date THEN 'overdue' ELSE status END",
    currency: "currency",
    client: "client",
    contact_id: "contact_id",
    month: MONTH("created_at"),
    due_month: "to_char(due_date, 'YYYY-MM')",
  },
  products: { currency: "currency", active: "active::text" },
  payments: { method: "method", currency: "currency", invoice_id: "invoice_id", month: MONTH("received_at") },
  contacts: { lifecycle_stage: "lifecycle_stage", company: "company", month: MONTH("created_at") },
  deals: { stage: "stage", currency: "currency", contact_id: "contact_id", month: MONTH("created_at") },
  communications: {
    channel: "channel",
    direction: "direction",
    contact_id: "contact_id",
    month: MONTH("occurred_at"),
  },
  candidates: { status: "status", position: "position", source: "source", month: MONTH("created_at") },
  skills: { status: "status", level: "level", name: "name", month: MONTH("created_at") },
};

/** The amount a sum adds up, per resource that has one. */
const AMOUNTS: Partial<Record<ResourceName, Record<string, string>>> = {
  invoices: { amount: "amount", outstanding: "amount - amount_paid", paid: "amount_paid" },
  payments: { amount: "amount" },
  deals: { value: "value" },
  products: { price: "price" },
};

const groupKeys = RESOURCE_NAMES.flatMap((resource) => Object.keys(GROUPS[resource]));
const CountArgs = ListArgs.omit({ sort: true, limit: true })
  .extend({
    group_by: z
      .enum([...new Set(groupKeys)] as [string, ...string[]])
      .optional()
      .meta({ description: "A field to count per value: status, stage, currency, client, month…" }),
  })
  .strict();
type CountArgs = z.infer<typeof CountArgs>;

export interface CountResult {
  resource: ResourceName;
  total: number;
  groups?: Array<{ key: string | null; count: number }>;
}

/**
 * `SELECT <group key>[, <by>], <select> … GROUP BY`: the tool's filters become the WHERE a list
 * of the same resource would use (organization first), so a count matches the list's total.
 */
async function aggregate(
  ctx: ToolContext,
  resource: ResourceName,
  args: CountArgs,
  { select, by }: { select: string; by?: string },
): Promise<Row[]> {
  const definition = definitionOf(ctx, resource);
  const query = listQueryOf(ctx, resource, args);
  const where = buildWhere(definition, ctx.orgId, query, {
    orgId: ctx.orgId,
    tx: ctx.store,
    now: ctx.now,
    today: ctx.today,
  });
  let key = "NULL";
  if (args.group_by) {
    const expression = GROUPS[resource][args.group_by];
    if (!expression) {
      const known = Object.keys(GROUPS[resource]).join(", ");
      throw new AppError(
        "validation_failed",
        `${resource} cannot be grouped by '${args.group_by}' (by: ${known})`,
      );
    }
    key = expression.includes("$TODAY") ? expression.replace("$TODAY", where.bind(ctx.today)) : expression;
  }
  const columns = by ? `${key} AS key, ${by}, ${select}` : `${key} AS key, ${select}`;
  const groups = by ? "1, 2" : "1";
  const table = definition.table ?? definition.name;
  return ctx.store.query<Row>(
    `SELECT ${columns} FROM ${table} ${where.toSql()} GROUP BY ${groups} ORDER BY ${groups}`,
    where.params,
  );
}

export const countRecords = {
  name: "count_records",
  description:
    "Count records of one resource, optionally per value of a field (status, stage, currency, month…).",
  access: "read",
  ...perResource,
  parameters: CountArgs,
  async run(ctx: ToolContext, args: CountArgs) {
    const rows = await aggregate(ctx, args.resource, args, { select: "count(*)::int AS n" });
    const total = rows.reduce((sum, row) => sum + Number(row.n), 0);
    const result: CountResult = { resource: args.resource, total };
    if (args.group_by) result.groups = rows.map((row) => ({ key: keyOf(row.key), count: Number(row.n) }));
    return { result, sources: [] };
  },
} satisfies ReadTool<CountArgs, CountResult>;

const SumArgs = CountArgs.extend({
  resource: z.enum(["invoices", "payments", "deals", "products"]),
  field: z.enum(["amount", "outstanding", "paid", "value", "price"]).optional().meta({
    description:
      "invoices: amount (default), outstanding or paid; payments: amount; deals: value; products: price",
  }),
}).strict();
type SumArgs = z.infer<typeof SumArgs>;

export interface SumResult {
  resource: ResourceName;
  field: string;
  /** One row per currency (and group): amounts are exact decimal strings, never added across currencies. */
  totals: Array<{ key?: string | null; currency: string; amount: string; count: number }>;
}

export const sumAmounts = {
  name: "sum_amounts",
  description:
    "Add up money on invoices, payments, deals or products with the list filters, per currency and optionally per status, stage, client or month.",
  access: "read",
  scopes: ["finance", "growth"],
  scopeOf: (args: { resource: ResourceName }) => engineOf(args.resource),
  parameters: SumArgs,
  async run(ctx: ToolContext, args: SumArgs) {
    const fields = AMOUNTS[args.resource]!;
    const field = args.field ?? Object.keys(fields)[0]!;
    const expression = fields[field];
    if (!expression) {
      throw new AppError(
        "validation_failed",
        `${args.resource} has no amount '${field}' (amounts: ${Object.keys(fields).join(", ")})`,
      );
    }
    const rows = await aggregate(ctx, args.resource, args, {
      by: "currency",
      select: `sum(${expression})::text AS amount, count(*)::int AS n`,
    });
    const totals = rows.map((row) => ({
      ...(args.group_by ? { key: keyOf(row.key) } : {}),
      currency: String(row.currency).trim(),
      amount: String(row.amount),
      count: Number(row.n),
    }));
    return { result: { resource: args.resource, field, totals }, sources: [] };
  },
} satisfies ReadTool<SumArgs, SumResult>;

/** A group's key as text: SQL hands back text, numbers or booleans (`active::text` already is). */
function keyOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === "string" ? value : JSON.stringify(value);
}
