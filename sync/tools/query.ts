import { z } from "zod";
import { AppError } from "../../core/index.ts";
import { buildWhere, type ResourceRow } from "../../engines/resource.ts";
import type { SqlWhere } from "../../engines/list-query.ts";
import { sourcesOf, perResource } from "./records.ts";
import {
  definitionOf,
  FiltersSchema,
  listQueryOf,
  ResourceNameSchema,
  type ApiRecord,
  type ResourceName,
} from "./resources.ts";
import type { ReadTool, ToolContext } from "./types.ts";

/**
 * `query_records`: one structured question over one resource, the language both planners speak
 * beneath their words. Conditions compare a named field with a value (`amount > 2500`, `stage !=
 * lost`, `received_at` within a window, `company` empty), then the records are listed in an order,
 * or aggregated (count, sum, average, median, min, max), or a ratio is taken (the share of them that
 * also meet more conditions), optionally per group (a field's value, or a month or quarter of a
 * date field). Fields are a fixed catalog per resource (`FIELDS`), each an SQL expression on the
 * resource's own table; values are always bound, never written into the SQL. Money is never added
 * or averaged across currencies: a money aggregate answers one value per currency.
 */

type FieldKind = "money" | "number" | "date" | "instant" | "text" | "enum" | "boolean" | "id" | "tags";

interface Field {
  kind: FieldKind;
  /** The SQL on the resource's table; `$TODAY` is today's date, bound. */
  sql: string;
  values?: readonly string[];
  description?: string;
  /** A count of related records: their resource (its table), so a condition may say which of them count (`of`). */
  related?: Related;
}

const money = (sql: string, description?: string): Field => ({
  kind: "money",
  sql,
  ...(description ? { description } : {}),
});
const text = (sql: string): Field => ({ kind: "text", sql });
const instant = (sql: string, description?: string): Field => ({
  kind: "instant",
  sql,
  ...(description ? { description } : {}),
});
const choice = (sql: string, values: readonly string[]): Field => ({ kind: "enum", sql, values });
const id = (sql: string): Field => ({ kind: "id", sql });

/** The name of a record's contact, in the same organization (null without one). */
const CONTACT_NAME = (table: string): Field =>
  text(`(SELECT c.name FROM contacts c WHERE c.id = ${table}.contact_id AND c.org_id = ${table}.org_id)`);

/**
 * How many records of `table` point at this one through `key` (and meet `where`), in the same
 * organization. Only a table of the record's own engine: `query_records` checks the caller's scope
 * for the resource asked about, so a count across engines (a contact's invoices) would let a
 * growth-only key read finance data.
 */
const RELATED_COUNT = (
  table: ResourceName,
  key: string,
  own: string,
  description: string,
  where = "",
): Field => ({
  kind: "number",
  sql: relatedCount({ table, key, own, where }),
  description,
  related: { table, key, own, where },
});

/** Records of `table` pointing at one of `own` through `key`, and meeting `where` (SQL, may be empty). */
interface Related {
  table: ResourceName;
  key: string;
  own: string;
  where: string;
}

/**
 * The count of related records' SQL, the related table under its own name (so its fields' SQL, which
 * may name it, reads the same inside), with `more` (conditions on it, already SQL) added.
 */
function relatedCount(related: Related, more: readonly string[] = []): string {
  const { table, key, own, where } = related;
  const conditions = [`${table}.${key} = ${own}.id`, `${table}.org_id = ${own}.org_id`, where, ...more];
  return `(SELECT count(*)::int FROM ${table} WHERE ${conditions.filter(Boolean).join(" AND ")})`;
}

/** The status a caller sees: an open invoice past its due date is overdue (engines/finance/invoices.ts). */
const INVOICE_STATUS =
  "(CASE WHEN status = 'open' AND due_date < $TODAY::date THEN 'overdue' ELSE status END)";

/** Every field a query can name, per resource: what it means, and its SQL. */
export const FIELDS: Record<ResourceName, Record<string, Field>> = {
  invoices: {
    id: id("id"),
    number: text("number"),
    client: text("client"),
    contact_id: id("contact_id"),
    status: choice(INVOICE_STATUS, ["draft", "open", "overdue", "paid", "void"]),
    currency: text("trim(currency)"),
    amount: money("amount", "the invoice's total"),
    // A draft or a void invoice owes nothing: only an issued one (open, or overdue) is owed.
    outstanding: money(
      "(CASE WHEN status = 'open' THEN amount - amount_paid ELSE 0 END)",
      "what is still owed (0 unless open or overdue)",
    ),
    paid: money("amount_paid", "what has been paid of it"),
    due_date: { kind: "date", sql: "due_date" },
    days_overdue: {
      kind: "number",
      sql: "(CASE WHEN status IN ('open', 'overdue') AND due_date < $TODAY::date THEN $TODAY::date - due_date ELSE 0 END)",
      description: "days past the due date while unpaid (0 otherwise)",
    },
    issued_at: instant("issued_at", "when it was issued (drafts have none)"),
    paid_at: instant("paid_at"),
    payments: RELATED_COUNT(
      "payments",
      "invoice_id",
      "invoices",
      "how many payments were recorded against it",
    ),
    paid_late: {
      kind: "boolean",
      sql: "(paid_at IS NOT NULL AND (paid_at AT TIME ZONE 'UTC')::date > due_date)",
      description: "paid after its due date",
    },
    created_at: instant("created_at"),
  },
  payments: {
    id: id("id"),
    invoice_id: id("invoice_id"),
    client: text(
      "(SELECT i.client FROM invoices i WHERE i.id = payments.invoice_id AND i.org_id = payments.org_id)",
    ),
    invoice_number: text(
      "(SELECT i.number FROM invoices i WHERE i.id = payments.invoice_id AND i.org_id = payments.org_id)",
    ),
    amount: money("amount"),
    currency: text("trim(currency)"),
    method: text("method"),
    received_at: instant("received_at"),
    created_at: instant("created_at"),
  },
  products: {
    id: id("id"),
    name: text("name"),
    sku: text("sku"),
    price: money("price"),
    currency: text("trim(currency)"),
    active: { kind: "boolean", sql: "active" },
    created_at: instant("created_at"),
  },
  contacts: {
    id: id("id"),
    name: text("name"),
    email: text("email"),
    phone: text("phone"),
    company: text("company"),
    lifecycle_stage: choice("lifecycle_stage", ["lead", "prospect", "customer", "churned"]),
    tags: {
      kind: "tags",
      sql: "tags",
      description: "its tags: eq/contains a tag, ne, in, not_in; is_null when none",
    },
    replies: RELATED_COUNT(
      "communications",
      "contact_id",
      "contacts",
      "how many conversations came in from them (inbound)",
      "communications.direction = 'inbound'",
    ),
    meetings: RELATED_COUNT(
      "communications",
      "contact_id",
      "contacts",
      "how many meetings with them",
      "communications.channel = 'meeting'",
    ),
    communications: RELATED_COUNT(
      "communications",
      "contact_id",
      "contacts",
      "how many conversations with them",
    ),
    deals: RELATED_COUNT("deals", "contact_id", "contacts", "how many deals they are the contact of"),
    created_at: instant("created_at"),
  },
  deals: {
    id: id("id"),
    title: text("title"),
    contact_id: id("contact_id"),
    contact: CONTACT_NAME("deals"),
    value: money("value"),
    currency: text("trim(currency)"),
    stage: choice("stage", ["lead", "qualified", "proposal", "won", "lost"]),
    expected_close_date: { kind: "date", sql: "expected_close_date" },
    closed_at: instant("closed_at"),
    created_at: instant("created_at"),
  },
  communications: {
    id: id("id"),
    contact_id: id("contact_id"),
    contact: CONTACT_NAME("communications"),
    deal_id: id("deal_id"),
    channel: choice("channel", ["email", "call", "sms", "meeting"]),
    direction: choice("direction", ["inbound", "outbound"]),
    subject: text("subject"),
    occurred_at: instant("occurred_at"),
    created_at: instant("created_at"),
  },
  candidates: {
    id: id("id"),
    name: text("name"),
    email: text("email"),
    phone: text("phone"),
    position: text("position"),
    source: text("source"),
    status: choice("status", ["applied", "screening", "interview", "offer", "hired", "rejected"]),
    created_at: instant("created_at", "when they applied"),
    hired_at: instant("hired_at"),
    rejected_at: instant("rejected_at"),
    skills: RELATED_COUNT("skills", "candidate_id", "candidates", "how many skills they list"),
    verified_skills: RELATED_COUNT(
      "skills",
      "candidate_id",
      "candidates",
      "how many of their skills are verified",
      "skills.status = 'verified'",
    ),
  },
  skills: {
    id: id("id"),
    candidate_id: id("candidate_id"),
    candidate: text(
      "(SELECT c.name FROM candidates c WHERE c.id = skills.candidate_id AND c.org_id = skills.org_id)",
    ),
    name: text("name"),
    level: choice("level", ["beginner", "intermediate", "advanced", "expert"]),
    status: choice("status", ["claimed", "verified"]),
    verified_at: instant("verified_at"),
    created_at: instant("created_at"),
  },
};

export const CONDITION_OPS = [
  "eq",
  "ne",
  "gt",
  "gte",
  "lt",
  "lte",
  "in",
  "not_in",
  "contains",
  "not_contains",
  "is_null",
  "not_null",
] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

const ValueSchema = z.union([z.string().max(200), z.number(), z.boolean()]);

const ConditionFields = {
  field: z.string().max(40),
  op: z.enum(CONDITION_OPS),
  value: z.union([ValueSchema, z.array(z.string().max(200)).max(20)]).optional(),
};

/** A condition on the related records a count field counts: one level deep, no `of` of its own. */
const RelatedConditionSchema = z.object(ConditionFields).strict();

export const ConditionSchema = z
  .object({
    ...ConditionFields,
    of: z.array(RelatedConditionSchema).min(1).max(6).optional().meta({
      description:
        'On a count of related records only: which of them count, as conditions on their own fields: {"field": "skills", "op": "eq", "value": 0, "of": [{"field": "name", "op": "eq", "value": "TypeScript"}]} is "without TypeScript"',
    }),
  })
  .strict()
  .meta({
    description:
      'A comparison: {"field": "amount", "op": "gt", "value": 2500}; dates as YYYY-MM-DD (gte/lt for a window); is_null/not_null take no value',
  });
export type Condition = z.infer<typeof ConditionSchema>;

export const AGGREGATES = ["count", "sum", "avg", "min", "max", "median"] as const;
export type AggregateFn = (typeof AGGREGATES)[number];

export const PERIODS = ["day", "week", "month", "quarter", "year"] as const;

const QueryArgs = z
  .object({
    resource: ResourceNameSchema,
    filters: FiltersSchema.optional(),
    where: z.array(ConditionSchema).max(12).optional(),
    q: z.string().max(200).optional().meta({ description: "Case-insensitive text search" }),
    aggregate: z
      .object({ fn: z.enum(AGGREGATES), field: z.string().max(40).optional() })
      .strict()
      .optional()
      .meta({ description: "Instead of records: count, or sum/avg/median/min/max of a field" }),
    ratio: z
      .array(ConditionSchema)
      .min(1)
      .max(6)
      .optional()
      .meta({ description: "Instead of records: the share of the matching records that also meet these" }),
    group_by: z.string().max(40).optional().meta({
      description: "With aggregate or ratio: a field, or a period of a date field ('month:received_at')",
    }),
    order_by: z.string().max(41).optional().meta({ description: "A field, '-' first for descending" }),
    limit: z.number().int().min(1).max(50).optional(),
    offset: z.number().int().min(0).max(10_000).optional(),
  })
  .strict();
export type QueryArgs = z.infer<typeof QueryArgs>;

export interface QueryValue {
  /** The group's key, when grouped. */
  key?: string | null;
  /** For money: the currency the value is in (never mixed). */
  currency?: string;
  /** Exact decimal text (averages and medians rounded to 2 decimals), or null over no records. */
  value: string | null;
  count: number;
  /** With `ratio`: how many of `count` also met its conditions. */
  matched?: number;
}

export type QueryResult =
  | { resource: ResourceName; mode: "records"; total: number; records: ApiRecord[] }
  | {
      resource: ResourceName;
      mode: "aggregate" | "ratio";
      total: number;
      fn?: AggregateFn;
      field?: string;
      values: QueryValue[];
    };

function fieldOf(resource: ResourceName, name: string): Field {
  const field = FIELDS[resource][name];
  if (!field) {
    const known = Object.keys(FIELDS[resource]).join(", ");
    throw new AppError("validation_failed", `${resource} has no field '${name}' (fields: ${known})`);
  }
  return field;
}

const SQL_OPS: Partial<Record<ConditionOp, string>> = {
  eq: "=",
  ne: "<>",
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
};

/** A value cast to what its field compares with: a number, a date, an instant, text. */
/** The SQL type a field's values are bound as. */
const SQL_TYPE: Record<FieldKind, string> = {
  money: "numeric",
  number: "numeric",
  date: "date",
  instant: "timestamptz",
  boolean: "boolean",
  text: "text",
  enum: "text",
  id: "text",
  tags: "text",
};

/**
 * A value as its field compares it: a finite number, a real calendar day (2026-02-30 is refused, not
 * rolled over), an instant (without a zone, UTC), true or false, one of an enum's values, or text.
 */
function valueOf(field: Field, name: string, value: unknown): string | boolean {
  switch (field.kind) {
    case "money":
    case "number": {
      const text = typeof value === "number" ? String(value) : String(value).replace(/,/g, "").trim();
      if (text === "" || !Number.isFinite(Number(text))) {
        throw new AppError("validation_failed", `${name} compares with a number`);
      }
      return String(Number(text));
    }
    case "date":
    case "instant": {
      const text = String(value);
      const day = text.slice(0, 10);
      const real =
        /^\d{4}-\d{2}-\d{2}$/.test(day) && new Date(`${day}T00:00:00Z`).toISOString().startsWith(day);
      const rest = text.slice(10);
      const zoned = rest === "" || /[zZ]|[+-]\d{2}:?\d{2}$/.test(rest) ? rest : `${rest}Z`;
      const at = new Date(rest === "" ? `${day}T00:00:00Z` : `${day}${zoned}`);
      if (!real || Number.isNaN(at.getTime())) {
        throw new AppError("validation_failed", `${name} compares with a date, YYYY-MM-DD`);
      }
      return field.kind === "date" ? day : at.toISOString();
    }
    case "boolean":
      if (value === true || value === "true") return true;
      if (value === false || value === "false") return false;
      throw new AppError("validation_failed", `${name} is true or false`);
    case "enum":
      checkChoice(field, name, value);
      return String(value);
    default:
      return String(value);
  }
}

function typed(field: Field, name: string, value: unknown, where: SqlWhere): string {
  return `${where.bind(valueOf(field, name, value))}::${SQL_TYPE[field.kind]}`;
}

function checkChoice(field: Field, name: string, value: unknown): void {
  const known = field.values ?? [];
  if (!known.includes(String(value))) {
    throw new AppError(
      "validation_failed",
      `'${String(value)}' is not a ${name} (one of: ${known.join(", ")})`,
    );
  }
}

/** The field's SQL, with today's date bound where it depends on it. */
function sqlOf(field: Field, where: SqlWhere, today: () => string): string {
  return field.sql.includes("$TODAY") ? field.sql.replaceAll("$TODAY", today()) : field.sql;
}

/** One condition as SQL: text compares case-insensitively, `contains` is a substring. */
export function conditionSql(
  resource: ResourceName,
  condition: Condition,
  where: SqlWhere,
  today: () => string,
): string {
  const field = fieldOf(resource, condition.field);
  let column = sqlOf(field, where, today);
  if (condition.of) {
    if (!field.related)
      throw new AppError(
        "validation_failed",
        `'of' is for a count of related records, and ${condition.field} is not one`,
      );
    const related = field.related;
    const more = condition.of.map((inner) => `(${conditionSql(related.table, inner, where, today)})`);
    column = relatedCount(related, more);
  }
  const textual = field.kind === "text" || field.kind === "id";
  const lhs = field.kind === "text" ? `lower(${column})` : column;
  const value = condition.value;
  const needs = () => {
    if (value === undefined)
      throw new AppError("validation_failed", `${condition.op} on ${condition.field} needs a value`);
    return value;
  };
  if (field.kind === "tags") return tagsSql(column, condition, where, needs);
  switch (condition.op) {
    case "is_null":
      return textual ? `(${column} IS NULL OR ${column} = '')` : `${column} IS NULL`;
    case "not_null":
      return textual ? `(${column} IS NOT NULL AND ${column} <> '')` : `${column} IS NOT NULL`;
    case "contains":
      if (!textual)
        throw new AppError("validation_failed", `contains compares text, and ${condition.field} is not text`);
      return `${column} ILIKE ${where.bind(`%${String(needs()).replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`;
    case "not_contains":
      if (!textual)
        throw new AppError(
          "validation_failed",
          `not_contains compares text, and ${condition.field} is not text`,
        );
      // Records without the value do not contain it.
      return `(${column} IS NULL OR ${column} NOT ILIKE ${where.bind(`%${String(needs()).replace(/[\\%_]/g, (c) => `\\${c}`)}%`)})`;
    case "in":
    case "not_in": {
      const raw = needs();
      const values = (Array.isArray(raw) ? raw : [raw]).map((one) =>
        field.kind === "text" ? String(one).toLowerCase() : valueOf(field, condition.field, one),
      );
      const list = `${lhs} = ANY(${where.bind(values)}::${SQL_TYPE[field.kind]}[])`;
      // NOT IN keeps the rows whose field is empty: "not in euros" is every other currency, and none.
      return condition.op === "in" ? list : `(${column} IS NULL OR NOT (${list}))`;
    }
    default: {
      const raw = needs();
      if (Array.isArray(raw)) throw new AppError("validation_failed", `${condition.op} takes one value`);
      if (
        (field.kind === "enum" || field.kind === "boolean" || field.kind === "id") &&
        condition.op !== "eq" &&
        condition.op !== "ne"
      ) {
        throw new AppError(
          "validation_failed",
          `${condition.field} has no order: compare it with eq, ne, in or not_in`,
        );
      }
      const rhs =
        field.kind === "text"
          ? `lower(${where.bind(String(raw))}::text)`
          : typed(field, condition.field, raw, where);
      const sql = `${lhs} ${SQL_OPS[condition.op]!} ${rhs}`;
      return condition.op === "ne" ? `(${column} IS NULL OR ${sql})` : sql;
    }
  }
}

/** A condition on a list of tags, compared case-insensitively: has the tag, lacks it, has none. */
function tagsSql(column: string, condition: Condition, where: SqlWhere, needs: () => unknown): string {
  const has = (values: unknown) => {
    const list = (Array.isArray(values) ? values : [values]).map((one) => String(one).toLowerCase());
    return `EXISTS (SELECT 1 FROM unnest(${column}) AS tag WHERE lower(tag) = ANY(${where.bind(list)}::text[]))`;
  };
  switch (condition.op) {
    case "is_null":
      return `cardinality(${column}) = 0`;
    case "not_null":
      return `cardinality(${column}) > 0`;
    case "eq":
    case "contains":
    case "in":
      return has(needs());
    case "ne":
    case "not_in":
    case "not_contains":
      return `NOT ${has(needs())}`;
    default:
      throw new AppError(
        "validation_failed",
        `${condition.field} is a list of tags: compare it with eq, ne, in or not_in`,
      );
  }
}

/** `month:received_at` → the period's SQL key; a plain field → its SQL. */
function groupSql(resource: ResourceName, groupBy: string, where: SqlWhere, today: () => string): string {
  const [period, name] = groupBy.includes(":") ? groupBy.split(":", 2) : [undefined, groupBy];
  const field = fieldOf(resource, name);
  const column = sqlOf(field, where, today);
  if (period === undefined) {
    if (field.kind === "money")
      throw new AppError("validation_failed", `cannot group by an amount ('${name}')`);
    return field.kind === "text" || field.kind === "enum" || field.kind === "id" ? column : `${column}::text`;
  }
  if (!(PERIODS as readonly string[]).includes(period)) {
    throw new AppError("validation_failed", `'${period}' is not a period (${PERIODS.join(", ")})`);
  }
  if (field.kind !== "date" && field.kind !== "instant") {
    throw new AppError("validation_failed", `${name} is not a date, so it has no ${period}`);
  }
  const day = field.kind === "instant" ? `(${column} AT TIME ZONE 'UTC')` : column;
  const formats: Record<string, string> = {
    day: `to_char(${day}, 'YYYY-MM-DD')`,
    week: `to_char(${day}, 'IYYY-"W"IW')`,
    month: `to_char(${day}, 'YYYY-MM')`,
    quarter: `to_char(${day}, 'YYYY-"Q"Q')`,
    year: `to_char(${day}, 'YYYY')`,
  };
  return formats[period]!;
}

const AGGREGATE_SQL: Record<Exclude<AggregateFn, "count">, (column: string) => string> = {
  sum: (column) => `sum(${column})::text`,
  avg: (column) => `round(avg(${column})::numeric, 2)::text`,
  median: (column) => `round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ${column}))::numeric, 2)::text`,
  min: (column) => `min(${column})::text`,
  max: (column) => `max(${column})::text`,
};

/** A row of an aggregate's SELECT: its group key, currency, count, value and, for a ratio, matches. */
interface AggregateRow {
  key: string | null;
  currency?: string;
  n: number;
  value?: string | null;
  matched?: number;
}

export async function runQuery(ctx: ToolContext, args: QueryArgs): Promise<QueryResult> {
  const { resource } = args;
  const definition = definitionOf(ctx, resource);
  const listQuery = listQueryOf(ctx, resource, { filters: args.filters, q: args.q });
  const where = buildWhere(definition, ctx.orgId, listQuery, {
    orgId: ctx.orgId,
    tx: ctx.store,
    now: ctx.now,
    today: ctx.today,
  });
  let todayParam: string | undefined;
  const today = () => (todayParam ??= where.bind(ctx.today));
  for (const condition of args.where ?? []) where.add(conditionSql(resource, condition, where, today));
  const table = definition.table ?? definition.name;

  if (args.aggregate && args.ratio)
    throw new AppError("validation_failed", "ask for an aggregate or a ratio, not both");
  if (!args.aggregate && !args.ratio) {
    if (args.group_by) throw new AppError("validation_failed", "group_by needs an aggregate or a ratio");
    const sort = args.order_by ?? "-created_at";
    const name = sort.replace(/^-/, "");
    const field = fieldOf(resource, name);
    const direction = sort.startsWith("-") ? "DESC" : "ASC";
    // Records without the value go last, whichever the direction: "the largest" is never a blank.
    const order = `ORDER BY ${sqlOf(field, where, today)} ${direction} NULLS LAST, id ${direction}`;
    const limit = `LIMIT ${args.limit ?? 10} OFFSET ${args.offset ?? 0}`;
    const rows = await ctx.store.query<ResourceRow & { tessera_total: string }>(
      `SELECT count(*) OVER () AS tessera_total, * FROM ${table} ${where.toSql()} ${order} ${limit}`,
      where.params,
    );
    let total = Number(rows[0]?.tessera_total ?? 0);
    if (rows.length === 0 && (args.offset ?? 0) > 0) {
      const [row] = await ctx.store.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${table} ${where.toSql()}`,
        where.params,
      );
      total = Number(row?.n ?? 0);
    }
    return {
      resource,
      mode: "records",
      total,
      records: rows.map((row) => definition.render(row, { today: ctx.today })),
    };
  }

  const key = args.group_by ? groupSql(resource, args.group_by, where, today) : "NULL";
  const fn = args.aggregate?.fn;
  const field = args.aggregate?.field;
  const selected: string[] = [`${key} AS key`, "count(*)::int AS n"];
  let perCurrency = false;
  if (args.ratio) {
    // Bound in the same parameter list, but not added to the WHERE: they only count.
    const clauses = args.ratio.map((condition) => conditionSql(resource, condition, where, today));
    selected.push(`count(*) FILTER (WHERE ${clauses.join(" AND ")})::int AS matched`);
  } else if (fn && fn !== "count") {
    if (!field) throw new AppError("validation_failed", `${fn} needs a field`);
    const spec = fieldOf(resource, field);
    if (
      !["money", "number", "date", "instant"].includes(spec.kind) ||
      (spec.kind !== "money" && spec.kind !== "number" && (fn === "sum" || fn === "avg" || fn === "median"))
    ) {
      throw new AppError("validation_failed", `cannot take the ${fn} of ${field}`);
    }
    const column = sqlOf(spec, where, today);
    // An instant's min or max as RFC 3339, like every instant the API shows.
    const value =
      spec.kind === "instant"
        ? `to_char(${fn}(${column}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`
        : AGGREGATE_SQL[fn](column);
    selected.push(`${value} AS value`);
    perCurrency = spec.kind === "money";
  } else if (field !== undefined) {
    fieldOf(resource, field);
  }
  if (perCurrency) selected.splice(1, 0, "trim(currency) AS currency");
  const groups = perCurrency ? "1, 2" : "1";
  const rows = await ctx.store.query<AggregateRow>(
    `SELECT ${selected.join(", ")} FROM ${table} ${where.toSql()} GROUP BY ${groups} ORDER BY ${groups}`,
    where.params,
  );
  const values: QueryValue[] = rows.map((row) => ({
    ...(args.group_by ? { key: row.key ?? null } : {}),
    ...(perCurrency ? { currency: String(row.currency) } : {}),
    value:
      row.value === undefined
        ? args.ratio
          ? null
          : String(row.n)
        : row.value === null
          ? null
          : String(row.value),
    count: Number(row.n),
    ...(args.ratio ? { matched: Number(row.matched) } : {}),
  }));
  const total = values.reduce((sum, value) => sum + value.count, 0);
  // A count over no records is 0, said as such: no group row came back to say it.
  if (values.length === 0 && !args.group_by && (fn === "count" || args.ratio)) {
    values.push({ value: args.ratio ? null : "0", count: 0, ...(args.ratio ? { matched: 0 } : {}) });
  }
  return {
    resource,
    mode: args.ratio ? "ratio" : "aggregate",
    total,
    ...(fn ? { fn } : {}),
    ...(field ? { field } : {}),
    values,
  };
}

export const queryRecords = {
  name: "query_records",
  description:
    "One structured question over one resource: conditions on any field (gt/gte/lt/lte/eq/ne/in/not_in/contains/is_null/not_null; dates as YYYY-MM-DD), then the records in an order (order_by '-amount', limit, offset), or an aggregate (count, sum, avg, median, min, max of a field; money per currency), or a ratio (the share that also meet more conditions), optionally per group (a field or 'month:<date field>'). Fields: " +
    Object.entries(FIELDS)
      .map(([resource, fields]) => `${resource}: ${Object.keys(fields).join(", ")}`)
      .join("; "),
  access: "read",
  ...perResource,
  parameters: QueryArgs,
  async run(ctx: ToolContext, args: QueryArgs) {
    const result = await runQuery(ctx, args);
    return { result, sources: result.mode === "records" ? sourcesOf(result.records) : [] };
  },
} satisfies ReadTool<QueryArgs, QueryResult>;
